// Package i128 is the signed 128-bit integer an exact decimal's
// coefficient and a decimal sum are held in: arithmetic that reports
// overflow, powers of ten, and comparisons and quotients across scales.
package i128

import (
	"math/big"
	"math/bits"

	"sutura.dev/domain"
)

// Int is a signed 128-bit integer in two's complement: the coefficient
// of an exact decimal, and the accumulator of a decimal sum.
type Int struct {
	Lo uint64
	Hi int64
}

// Of is the 128-bit form of v.
func Of(v int64) Int { return Int{Lo: uint64(v), Hi: v >> 63} }

// AddInt64 adds v. Sums of int64 values cannot pass 128 bits before 2^64
// of them, so it does not check.
func (a Int) AddInt64(v int64) Int {
	lo, c := bits.Add64(a.Lo, uint64(v), 0)
	return Int{Lo: lo, Hi: a.Hi + v>>63 + int64(c)}
}

// Add returns a+b; ok is false when the sum passes 128 bits.
func (a Int) Add(b Int) (Int, bool) {
	lo, c := bits.Add64(a.Lo, b.Lo, 0)
	hi := a.Hi + b.Hi + int64(c)
	// Signed overflow: both operands' signs agree and the result's differs.
	if (a.Hi >= 0) == (b.Hi >= 0) && (hi >= 0) != (a.Hi >= 0) {
		return Int{}, false
	}
	return Int{Lo: lo, Hi: hi}, true
}

// Neg is -a (the most negative value has no negation; decimals never reach
// it, being bounded by 10^38).
func (a Int) Neg() Int {
	lo, b := bits.Sub64(0, a.Lo, 0)
	return Int{Lo: lo, Hi: -a.Hi - int64(b)}
}

// Sign is -1, 0 or 1.
func (a Int) Sign() int {
	switch {
	case a.Hi < 0:
		return -1
	case a.Hi == 0 && a.Lo == 0:
		return 0
	}
	return 1
}

// Cmp compares a and b: -1, 0 or 1.
func (a Int) Cmp(b Int) int {
	switch {
	case a.Hi < b.Hi:
		return -1
	case a.Hi > b.Hi:
		return 1
	case a.Lo < b.Lo:
		return -1
	case a.Lo > b.Lo:
		return 1
	}
	return 0
}

// IsInt64 reports whether a fits in an int64.
func (a Int) IsInt64() bool { return a.Hi == int64(a.Lo)>>63 }

// MulPow10 returns a × 10^n; ok is false when the product passes the 38
// digits of a decimal.
func (a Int) MulPow10(n int32) (Int, bool) {
	if n == 0 || a.Sign() == 0 {
		return a, a.Fits()
	}
	if n < 0 || n > domain.MaxDecimalDigits {
		return Int{}, false
	}
	neg := a.Sign() < 0
	if neg {
		a = a.Neg()
	}
	f := pow10[n]
	// |a| < 2^127 and f < 2^127: the product fits in 128 bits only when
	// one of the high words is zero.
	if a.Hi != 0 && f.Hi != 0 {
		return Int{}, false
	}
	var p Int
	if f.Hi == 0 {
		h1, l1 := bits.Mul64(a.Lo, f.Lo)
		h2, l2 := bits.Mul64(uint64(a.Hi), f.Lo)
		hi, c := bits.Add64(h1, l2, 0)
		if h2 != 0 || c != 0 {
			return Int{}, false
		}
		p = Int{Lo: l1, Hi: int64(hi)}
	} else {
		h1, l1 := bits.Mul64(a.Lo, f.Lo)
		h2, l2 := bits.Mul64(a.Lo, uint64(f.Hi))
		hi, c := bits.Add64(h1, l2, 0)
		if h2 != 0 || c != 0 {
			return Int{}, false
		}
		p = Int{Lo: l1, Hi: int64(hi)}
	}
	if p.Hi < 0 {
		return Int{}, false
	}
	if neg {
		p = p.Neg()
	}
	return p, p.Fits()
}

// Fits reports whether a holds at most 38 decimal digits.
func (a Int) Fits() bool {
	if a.Sign() < 0 {
		a = a.Neg()
	}
	return a.Hi >= 0 && a.Cmp(pow10[domain.MaxDecimalDigits]) < 0
}

// Digits reports whether |a| < 10^n: a holds at most n digits.
func (a Int) Digits(n int32) bool {
	if n > domain.MaxDecimalDigits {
		n = domain.MaxDecimalDigits
	}
	if a.Sign() < 0 {
		a = a.Neg()
	}
	return a.Hi >= 0 && a.Cmp(pow10[n]) < 0
}

// Big is a as a big.Int.
func (a Int) Big() *big.Int {
	v := new(big.Int).SetInt64(a.Hi)
	v.Lsh(v, 64)
	return v.Or(v, new(big.Int).SetUint64(a.Lo))
}

// Cell is the decimal cell of a × 10^-scale.
func (a Int) Cell(scale int32) domain.Cell {
	if a.IsInt64() {
		return domain.Decimal64(int64(a.Lo), scale)
	}
	return domain.DecimalCell(a.Big(), scale)
}

// FromBig converts v; ok is false when it does not fit in 128 bits.
func FromBig(v *big.Int) (Int, bool) {
	if v.BitLen() > 127 {
		return Int{}, false
	}
	neg := v.Sign() < 0
	m := new(big.Int).Abs(v)
	lo := m.Uint64()
	hi := new(big.Int).Rsh(m, 64).Uint64()
	a := Int{Lo: lo, Hi: int64(hi)}
	if neg {
		a = a.Neg()
	}
	return a, true
}

// Pow10 is 10^n, for 0 ≤ n ≤ domain.MaxDecimalDigits.
func Pow10(n int32) Int { return pow10[n] }

var pow10 = func() [domain.MaxDecimalDigits + 1]Int {
	var t [domain.MaxDecimalDigits + 1]Int
	v := big.NewInt(1)
	for i := range t {
		t[i], _ = FromBig(v)
		v.Mul(v, big.NewInt(10))
	}
	return t
}()

// CompareScaled compares a at scale sa with b at scale sb exactly.
func CompareScaled(a Int, sa int32, b Int, sb int32) int {
	if sa == sb {
		return a.Cmp(b)
	}
	x, y := a.Big(), b.Big()
	if sa < sb {
		x.Mul(x, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(sb-sa)), nil))
	} else {
		y.Mul(y, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(sa-sb)), nil))
	}
	return x.Cmp(y)
}

// Quotient is the float64 nearest to (a × 10^-sa) / (b × 10^-sb),
// correctly rounded (b ≠ 0).
func Quotient(a Int, sa int32, b *big.Int, sb int32) float64 {
	num := a.Big()
	den := new(big.Int).Set(b)
	if sa > sb {
		den.Mul(den, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(sa-sb)), nil))
	} else if sb > sa {
		num.Mul(num, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(sb-sa)), nil))
	}
	f, _ := new(big.Rat).SetFrac(num, den).Float64()
	return f
}
