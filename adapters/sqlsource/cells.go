package sqlsource

import (
	"math"
	"math/big"
	"time"

	"sutura.dev/domain"
)

// Scalar is the canonical cell of a plain Go value a driver returns: nil
// is null; bool a boolean; the signed and unsigned integers an integer
// cell (an unsigned one past the int64 range a decimal cell of its exact
// value); a *big.Int as BigIntCell; a float64 a
// real; a string text. ok is false for any other type, which the adapter
// converts as its data system means it (float32, []byte, time.Time,
// decimals through DecimalCell, nested values).
func Scalar(v any) (c domain.Cell, ok bool) {
	switch x := v.(type) {
	case nil:
		return domain.Null(), true
	case bool:
		return domain.Bool(x), true
	case int8:
		return domain.Int(int64(x)), true
	case int16:
		return domain.Int(int64(x)), true
	case int32:
		return domain.Int(int64(x)), true
	case int64:
		return domain.Int(x), true
	case uint8:
		return domain.Int(int64(x)), true
	case uint16:
		return domain.Int(int64(x)), true
	case uint32:
		return domain.Int(int64(x)), true
	case uint64:
		if x > math.MaxInt64 {
			return domain.DecimalCell(new(big.Int).SetUint64(x), 0), true
		}
		return domain.Int(int64(x)), true
	case *big.Int:
		return BigIntCell(x), true
	case float64:
		return domain.Float(x), true
	case string:
		return domain.Text(x), true
	}
	return domain.Null(), false
}

// BigIntCell is an integer cell for v when it fits in 64 bits and a
// decimal cell of its exact value otherwise (a sum over an integer column
// may be wider), rendered the same on every data system.
func BigIntCell(v *big.Int) domain.Cell {
	if v.IsInt64() {
		return domain.Int(v.Int64())
	}
	return domain.DecimalCell(v, 0)
}

var bigTen = big.NewInt(10)

// DecimalCell is the cell of the exact decimal coef × 10^exp (a numeric,
// DECIMAL or Decimal value): an integer cell when it is integral and fits
// in 64 bits (a sum over an integer column that a data system returns as
// a decimal), otherwise a decimal cell of its exact value, which renders
// the same bytes whichever data system returned it (docs/contract.md
// §4.2): no exponent, no trailing fractional zero, no "." when whole.
func DecimalCell(coef *big.Int, exp int32) domain.Cell {
	switch {
	case exp > 18:
		// Past int64 whatever the digits (10^19 already is).
	case exp >= 0:
		v := new(big.Int).Mul(coef, new(big.Int).Exp(bigTen, big.NewInt(int64(exp)), nil))
		if v.IsInt64() {
			return domain.Int(v.Int64())
		}
	default:
		q, r := new(big.Int).QuoRem(coef, new(big.Int).Exp(bigTen, big.NewInt(int64(-exp)), nil), new(big.Int))
		if r.Sign() == 0 && q.IsInt64() {
			return domain.Int(q.Int64())
		}
	}
	return domain.DecimalCell(coef, -exp)
}

// TimestampText is the engine's rendering of a timestamp: RFC 3339 in UTC
// with the shortest fraction of a second. A driver that reads a timestamp
// without time zone as UTC wall-clock time hands it in as such.
func TimestampText(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
