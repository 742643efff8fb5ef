package column

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"sutura.dev/exec-arrow/internal/grow"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/i128"
)

// DecimalSpec is a decimal column's declared precision (0: 38) and scale
// (when Scaled; otherwise the scale is the most fractional digits a value
// of the column is written with).
type DecimalSpec struct {
	Precision int32
	Scale     int32
	Scaled    bool
}

// SpecOf is the spec of a declared model column.
func SpecOf(c domain.ModelColumn) DecimalSpec {
	s := DecimalSpec{Precision: int32(c.Precision)}
	if c.Scale != nil {
		s.Scale, s.Scaled = int32(*c.Scale), true
	}
	return s
}

func (s DecimalSpec) precision() int32 {
	if s.Precision == 0 {
		return domain.MaxDecimalDigits
	}
	return s.Precision
}

// ErrScale is the problem of a decimal value written with more fractional
// digits than its column's declared scale. It never carries the value.
type ErrScale struct{ Scale int32 }

// Error names the declared scale.
func (e ErrScale) Error() string {
	return fmt.Sprintf("value has more fractional digits than the column's scale %d", e.Scale)
}

// ErrPrecision is the problem of a decimal value with more digits than
// its column holds (its declared precision, or 38). It never carries the
// value; it wraps domain.ErrDecimalOverflow.
type ErrPrecision struct{ Precision int32 }

// Error names the precision.
func (e ErrPrecision) Error() string {
	return fmt.Sprintf("value has more than the column's %d digits", e.Precision)
}

// Unwrap is domain.ErrDecimalOverflow.
func (e ErrPrecision) Unwrap() error { return domain.ErrDecimalOverflow }

// DecAt is the coefficient of row r of a decimal column (at c.Scale).
func (c *Column) DecAt(r int32) i128.Int {
	if c.Dec != nil {
		n := c.Dec[r]
		return i128.Int{Lo: n.LowBits(), Hi: n.HighBits()}
	}
	return i128.Of(c.Ints[r])
}

// ParseDecimalText reads decimal text (an optional sign, digits with an
// optional fraction, an optional exponent) exactly as a coefficient and
// its scale (never negative); ok is false for other text or more than 38
// significant digits.
func ParseDecimalText(s string) (v i128.Int, scale int32, ok bool) {
	neg, digits, sc, ok := domain.SplitDecimal(s)
	if !ok {
		return i128.Int{}, 0, false
	}
	if sc < 0 {
		if sc < -domain.MaxDecimalDigits {
			return i128.Int{}, 0, false
		}
		digits += strings.Repeat("0", int(-sc))
		sc = 0
	}
	digits = strings.TrimLeft(digits, "0")
	if len(digits) > domain.MaxDecimalDigits {
		// Trailing fractional zeros add digits, not value.
		for len(digits) > domain.MaxDecimalDigits && sc > 0 && digits[len(digits)-1] == '0' {
			digits, sc = digits[:len(digits)-1], sc-1
		}
		if len(digits) > domain.MaxDecimalDigits {
			return i128.Int{}, 0, false
		}
	}
	if sc > domain.MaxDecimalDigits {
		return i128.Int{}, 0, false
	}
	switch {
	case digits == "":
		return i128.Int{}, sc, true
	case len(digits) <= 18:
		u, err := strconv.ParseInt(digits, 10, 64)
		if err != nil {
			return i128.Int{}, 0, false
		}
		v = i128.Of(u)
	default:
		b, _ := new(big.Int).SetString(digits, 10)
		v, _ = i128.FromBig(b)
	}
	if neg {
		v = v.Neg()
	}
	return v, sc, true
}

// DecBuilder builds a decimal column exactly: coefficients at one scale
// (the declared one, or the most fractional digits met so far, values
// already held being rescaled when a value with more arrives), in int64
// while every value fits and in 128 bits after.
type DecBuilder struct {
	spec  DecimalSpec
	check bool
	scale int32
	lo    []int64 // the coefficients, or their low words once hi is kept
	hi    []int64 // high words, nil while every value fits in 64 bits
	mask  nullMask
}

// NewDecBuilder returns the builder of a decimal column of spec.
func NewDecBuilder(spec DecimalSpec, check bool) *DecBuilder {
	return &DecBuilder{spec: spec, check: check, scale: spec.Scale}
}

// AppendDecimal appends the decimal v × 10^-scale exactly.
func (b *DecBuilder) AppendDecimal(v i128.Int, scale int32) error {
	switch {
	case scale > b.scale && b.spec.Scaled:
		// Fractional digits past the declared scale are refused unless
		// they are zeros.
		for scale > b.scale && v.Sign() != 0 {
			q, r := divMod10(v)
			if r != 0 {
				return ErrScale{b.spec.Scale}
			}
			v, scale = q, scale-1
		}
		scale = b.scale
	case scale > b.scale:
		if err := b.rescale(scale); err != nil {
			return err
		}
	}
	v, ok := v.MulPow10(b.scale - scale)
	if !ok || !v.Digits(b.spec.precision()) {
		return ErrPrecision{b.spec.precision()}
	}
	if b.check {
		return nil
	}
	b.push(v)
	return nil
}

// divMod10 divides a by 10, truncating, with the remainder's magnitude.
func divMod10(a i128.Int) (i128.Int, int) {
	q, r := new(big.Int).QuoRem(a.Big(), big.NewInt(10), new(big.Int))
	v, _ := i128.FromBig(q)
	return v, int(r.Int64() * int64(r.Sign()))
}

func (b *DecBuilder) push(v i128.Int) {
	switch {
	case b.hi != nil:
		b.lo = append(b.lo, int64(v.Lo))
		b.hi = append(b.hi, v.Hi)
	case v.IsInt64():
		b.lo = append(b.lo, int64(v.Lo))
	default:
		b.hi = make([]int64, len(b.lo), max(len(b.lo)+1, cap(b.lo)))
		for i, x := range b.lo {
			b.hi[i] = x >> 63
		}
		b.lo = append(b.lo, int64(v.Lo))
		b.hi = append(b.hi, v.Hi)
	}
	b.mask.add(true)
}

// rescale raises the scale of every value held to scale.
func (b *DecBuilder) rescale(scale int32) error {
	d := scale - b.scale
	b.scale = scale
	if b.check {
		return nil
	}
	for i := range b.lo {
		var v i128.Int
		if b.hi != nil {
			v = i128.Int{Lo: uint64(b.lo[i]), Hi: b.hi[i]}
		} else {
			v = i128.Of(b.lo[i])
		}
		if v.Sign() == 0 {
			continue
		}
		w, ok := v.MulPow10(d)
		if !ok || !w.Digits(b.spec.precision()) {
			return ErrPrecision{b.spec.precision()}
		}
		if b.hi == nil && !w.IsInt64() {
			b.hi = make([]int64, len(b.lo), cap(b.lo))
			for j, x := range b.lo {
				b.hi[j] = x >> 63
			}
		}
		b.lo[i] = int64(w.Lo)
		if b.hi != nil {
			b.hi[i] = w.Hi
		}
	}
	return nil
}

func (b *DecBuilder) AppendNull() {
	if b.check {
		return
	}
	b.lo = append(b.lo, 0)
	if b.hi != nil {
		b.hi = append(b.hi, 0)
	}
	b.mask.add(false)
}

func (b *DecBuilder) AppendText(s string) error {
	v, sc, ok := ParseDecimalText(s)
	if !ok {
		if _, _, _, syntax := domain.SplitDecimal(s); syntax {
			return ErrPrecision{b.spec.precision()}
		}
		return ErrNotType{domain.TypeDecimal}
	}
	return b.AppendDecimal(v, sc)
}

func (b *DecBuilder) AppendInt(v int64) error { return b.AppendDecimal(i128.Of(v), 0) }

// AppendFloat appends the shortest decimal that reads back as v (a
// Parquet real in a column declared decimal).
func (b *DecBuilder) AppendFloat(v float64) error {
	c := domain.Float(v)
	if c.IsNull() {
		return ErrNotType{domain.TypeDecimal}
	}
	return b.AppendText(c.Render())
}

func (b *DecBuilder) AppendBool(bool) error    { return ErrNotType{domain.TypeDecimal} }
func (b *DecBuilder) AppendDate(int32) error   { return ErrNotType{domain.TypeDecimal} }
func (b *DecBuilder) AppendMicros(int64) error { return ErrNotType{domain.TypeDecimal} }
func (b *DecBuilder) Size() int64              { return int64(8*(len(b.lo)+len(b.hi))) + b.mask.size() }
func (b *DecBuilder) Reserve(n int)            { b.lo = grow.To(b.lo, n); b.mask.Reserve(n) }
func (b *DecBuilder) ReserveBytes(n int) int64 { return 8*int64(n) + maskBytes(n) }

func (b *DecBuilder) Finish(name string) *Column {
	if b.check {
		return nil
	}
	if b.hi == nil {
		c := New(name, domain.TypeDecimal, wrap(arrow.PrimitiveTypes.Int64, arrow.Int64Traits.CastToBytes(b.lo), len(b.lo), &b.mask))
		c.Scale = b.scale
		return c
	}
	vals := make([]decimal128.Num, len(b.lo))
	for i := range vals {
		vals[i] = decimal128.New(b.hi[i], uint64(b.lo[i]))
	}
	dt := &arrow.Decimal128Type{Precision: domain.MaxDecimalDigits, Scale: b.scale}
	return New(name, domain.TypeDecimal, wrap(dt, arrow.Decimal128Traits.CastToBytes(vals), len(vals), &b.mask))
}

// buildDecimalCodes numbers the distinct values of a decimal column.
func buildDecimalCodes(ctx context.Context, d *Derived, s *CodeSet) (*CodeSet, error) {
	c := d.col
	vals, err := distinctByMap(ctx, d, s.Codes, c.DecAt)
	if err != nil {
		return nil, err
	}
	s.lazily(d, len(vals), int64(16*len(vals)), func(k int) domain.Cell { return vals[k].Cell(c.Scale) },
		func() []int32 { return RankOf(len(vals), func(a, b int) bool { return vals[a].Cmp(vals[b]) < 0 }) })
	return s, nil
}

// AppendArray takes a Parquet DECIMAL chunk (Arrow Decimal128) without
// converting value by value through the Builder interface: each
// coefficient is rescaled to the column's scale and checked as
// AppendDecimal does. A chunk with a value AppendDecimal would refuse is
// left to the value-by-value path, whose error names the row.
func (b *DecBuilder) AppendArray(arr arrow.Array) bool {
	a, ok := arr.(*array.Decimal128)
	if !ok || b.check {
		return false
	}
	scale := a.DataType().(*arrow.Decimal128Type).Scale
	if scale > b.scale {
		if b.spec.Scaled || b.rescale(scale) != nil {
			return false
		}
	}
	f, prec := b.scale-scale, b.spec.precision()
	vals := a.Values()
	nulls := a.NullN() > 0
	if f == 0 && b.hi == nil && !nulls && b.appendInt64s(vals, prec) {
		return true
	}
	for i, n := range vals {
		if nulls && a.IsNull(i) {
			continue
		}
		if w, ok := (i128.Int{Lo: n.LowBits(), Hi: n.HighBits()}).MulPow10(f); !ok || !w.Digits(prec) {
			return false
		}
	}
	b.lo = grow.To(b.lo, len(vals))
	if b.hi != nil {
		b.hi = grow.To(b.hi, len(vals))
	}
	b.mask.Reserve(len(vals))
	for i, n := range vals {
		if nulls && a.IsNull(i) {
			b.AppendNull()
			continue
		}
		w, _ := (i128.Int{Lo: n.LowBits(), Hi: n.HighBits()}).MulPow10(f)
		b.push(w)
	}
	return true
}

// appendInt64s appends coefficients already at the column's scale when
// every one fits in an int64 and the precision, the common case of a
// Parquet DECIMAL of up to 18 digits; otherwise it appends nothing and
// reports false.
func (b *DecBuilder) appendInt64s(vals []decimal128.Num, prec int32) bool {
	bound := int64(math.MaxInt64)
	if prec < 19 {
		bound = int64(i128.Pow10(prec).Lo)
	}
	n := len(b.lo)
	out := grow.To(b.lo, len(vals))[:n+len(vals)]
	for i, v := range vals {
		x := int64(v.LowBits())
		if v.HighBits() != x>>63 || x >= bound || x <= -bound {
			return false
		}
		out[n+i] = x
	}
	b.lo = out
	b.mask.AddValid(len(vals))
	return true
}
