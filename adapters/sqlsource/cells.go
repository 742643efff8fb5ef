package sqlsource

import (
	"math"
	"math/big"
	"time"

	"sutura.dev/domain"
)

// Scalar is the canonical cell of a plain Go value a driver returns: nil
// is null; bool a boolean; the signed and unsigned integers an integer
// cell (an unsigned one past the int64 range a real); a *big.Int an
// integer cell when it fits in 64 bits and a real otherwise; a float64 a
// real; a string text. ok is false for any other type, which the adapter
// converts as its data system means it (float32, []byte, time.Time,
// decimals, nested values).
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
			return domain.Float(float64(x)), true
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

// BigIntCell is an integer cell for v when it fits in 64 bits and the
// nearest real otherwise (a sum over an integer column may be wider).
func BigIntCell(v *big.Int) domain.Cell {
	if v.IsInt64() {
		return domain.Int(v.Int64())
	}
	f, _ := new(big.Float).SetInt(v).Float64()
	return domain.Float(f)
}

var bigTen = big.NewInt(10)

// DecimalCell is the cell of the decimal coef × 10^exp: an integer cell
// when it is integral and fits in 64 bits, otherwise the real nearest to
// its exact value (a sum over a decimal column is a decimal).
func DecimalCell(coef *big.Int, exp int32) domain.Cell {
	v := new(big.Int).Set(coef)
	switch {
	case exp > 18:
		// Past int64 whatever the digits (10^19 already is).
	case exp >= 0:
		v.Mul(v, new(big.Int).Exp(bigTen, big.NewInt(int64(exp)), nil))
		if v.IsInt64() {
			return domain.Int(v.Int64())
		}
	default:
		q, r := new(big.Int).QuoRem(v, new(big.Int).Exp(bigTen, big.NewInt(int64(-exp)), nil), new(big.Int))
		if r.Sign() == 0 && q.IsInt64() {
			return domain.Int(q.Int64())
		}
	}
	r := new(big.Rat).SetInt(coef)
	scale := new(big.Rat).SetInt(new(big.Int).Exp(bigTen, big.NewInt(int64(abs32(exp))), nil))
	if exp >= 0 {
		r.Mul(r, scale)
	} else {
		r.Quo(r, scale)
	}
	f, _ := r.Float64()
	return domain.Float(f)
}

func abs32(v int32) int32 {
	if v < 0 {
		return -v
	}
	return v
}

// TimestampText is the engine's rendering of a timestamp: RFC 3339 in UTC
// with the shortest fraction of a second. A driver that reads a timestamp
// without time zone as UTC wall-clock time hands it in as such.
func TimestampText(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
