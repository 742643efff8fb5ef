package domain

import (
	"errors"
	"math/big"
	"strconv"
	"strings"
)

// ErrDecimalOverflow is the kind of an error a data system returns
// (wrapped, naming the metric or column) when an exact decimal value — a
// sum over a decimal column, or a value rescaled to the column's scale —
// passes the 38 significant digits a decimal holds. It is never wrapped
// around to a wrong value: the answer does not exist as a decimal, as on
// DuckDB, whose SUM(DECIMAL) fails the same way (docs/reference.md).
var ErrDecimalOverflow = errors.New("a decimal value passes 38 digits")

// MaxDecimalDigits is the most significant digits an exact decimal holds
// (the precision of Arrow Decimal128, DuckDB DECIMAL(38) and ClickHouse
// Decimal128).
const MaxDecimalDigits = 38

// DecimalCell returns the exact decimal coef × 10^-scale as a cell. It
// renders as its exact value (docs/contract.md §4.2): no exponent, no
// trailing fractional zero, no "." when it is whole, "-" only before a
// value that is not zero.
func DecimalCell(coef *big.Int, scale int32) Cell {
	neg := coef.Sign() < 0
	return Cell{kind: KindDecimal, s: FormatDecimal(neg, new(big.Int).Abs(coef).String(), scale)}
}

// Decimal64 is DecimalCell of an int64 coefficient.
func Decimal64(coef int64, scale int32) Cell {
	if coef < 0 {
		// -MinInt64 overflows: format its magnitude through uint64.
		return Cell{kind: KindDecimal, s: FormatDecimal(true, strconv.FormatUint(uint64(-(coef+1))+1, 10), scale)}
	}
	return Cell{kind: KindDecimal, s: FormatDecimal(false, strconv.FormatUint(uint64(coef), 10), scale)}
}

// FormatDecimal is the canonical text of the decimal whose magnitude has
// the decimal digits digits (no sign, leading zeros allowed) and whose
// value is digits × 10^-scale, negative when neg and not zero.
func FormatDecimal(neg bool, digits string, scale int32) string {
	digits = strings.TrimLeft(digits, "0")
	if digits == "" {
		return "0"
	}
	if scale < 0 {
		digits += strings.Repeat("0", int(-scale))
		scale = 0
	}
	n := int(scale)
	// Drop trailing fractional zeros.
	for n > 0 && len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		n--
	}
	var ip, fp string
	if len(digits) > n {
		ip, fp = digits[:len(digits)-n], digits[len(digits)-n:]
	} else {
		ip, fp = "", strings.Repeat("0", n-len(digits))+digits
	}
	ip = strings.TrimLeft(ip, "0")
	if ip == "" {
		ip = "0"
	}
	if ip == "0" && fp == "" {
		return "0"
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	b.WriteString(ip)
	if fp != "" {
		b.WriteByte('.')
		b.WriteString(fp)
	}
	return b.String()
}

// ParseDecimal reads decimal text — an optional sign, digits with an
// optional fraction, and an optional exponent (e or E) — exactly as its
// coefficient and scale (the number of fractional digits written, less
// the exponent; negative for a whole value written with a positive
// exponent). ok is false for any other text, and for text of more than
// 1000 digits or an exponent past ±1000.
func ParseDecimal(s string) (coef *big.Int, scale int32, ok bool) {
	neg, digits, scale, ok := SplitDecimal(s)
	if !ok {
		return nil, 0, false
	}
	coef, _ = new(big.Int).SetString(digits, 10)
	if neg {
		coef.Neg(coef)
	}
	return coef, scale, true
}

// SplitDecimal is ParseDecimal without the conversion: the sign, the
// digits of the coefficient (leading zeros kept) and the scale.
func SplitDecimal(s string) (neg bool, digits string, scale int32, ok bool) {
	if s == "" {
		return false, "", 0, false
	}
	switch s[0] {
	case '-':
		neg, s = true, s[1:]
	case '+':
		s = s[1:]
	}
	mant, exp := s, ""
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, exp = s[:i], s[i+1:]
		if exp == "" {
			return false, "", 0, false
		}
	}
	ip, fp := mant, ""
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		ip, fp = mant[:i], mant[i+1:]
	}
	if ip == "" && fp == "" || !allDigits(ip) || !allDigits(fp) || len(ip)+len(fp) > 1000 {
		return false, "", 0, false
	}
	sc := int64(len(fp))
	if exp != "" {
		e, err := strconv.ParseInt(exp, 10, 32)
		if err != nil || e > 1000 || e < -1000 {
			return false, "", 0, false
		}
		sc -= e
	}
	digits = ip + fp
	return neg, digits, int32(sc), true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// DecimalText returns the decimal cell of decimal text (ParseDecimal's
// syntax); ok is false when s is not one.
func DecimalText(s string) (Cell, bool) {
	neg, digits, scale, ok := SplitDecimal(s)
	if !ok {
		return Null(), false
	}
	return Cell{kind: KindDecimal, s: FormatDecimal(neg, digits, scale)}, true
}

// DecimalValue returns the exact value of a decimal or integer cell as its
// coefficient and scale (the fewest fractional digits, never negative);
// ok is false for a cell of another kind.
func (c Cell) DecimalValue() (coef *big.Int, scale int32, ok bool) {
	switch c.kind {
	case KindInt:
		return big.NewInt(c.i), 0, true
	case KindDecimal:
		coef, scale, _ = ParseDecimal(c.s)
		return coef, scale, true
	}
	return nil, 0, false
}

// decimalFloat is the float64 nearest to canonical decimal text.
func decimalFloat(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64)
	return f
}
