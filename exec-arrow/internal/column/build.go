package column

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/grow"
	"sutura.dev/exec-arrow/internal/i128"
	"sutura.dev/exec-arrow/internal/parse"
)

// ErrNotType is the problem of a value that is not of its column's type.
// It never carries the value.
type ErrNotType struct{ Type domain.ColumnType }

// Error names the type the value does not parse as.
func (e ErrNotType) Error() string { return "value does not parse as " + string(e.Type) }

// ErrNotScalar is the error of a value that is an array or an object.
var ErrNotScalar = errors.New("value is not a scalar")

// Builder accumulates one column while a file is read. Values arrive as
// text (CSV, NDJSON) or typed (Parquet); each builder accepts what converts
// exactly into its type and reports errNotType otherwise. A builder in
// check mode parses but keeps nothing: start-up validation uses it.
type Builder interface {
	AppendNull()
	AppendText(s string) error
	AppendInt(v int64) error
	AppendFloat(v float64) error
	AppendBool(v bool) error
	AppendDate(d int32) error
	AppendMicros(us int64) error
	// AppendDecimal appends the exact decimal v × 10^-scale.
	AppendDecimal(v i128.Int, scale int32) error
	// size estimates the bytes held so far.
	Size() int64
	// finish returns the built column, or nil in check mode.
	Finish(name string) *Column
}

// NewBuilder returns the builder of a column of declared type typ;
// TypeUnset collects text and infers the type at finish.
func NewBuilder(typ domain.ColumnType, check bool) Builder {
	return NewBuilderSpec(typ, DecimalSpec{}, check)
}

// NewBuilderSpec is NewBuilder with a decimal column's declared precision
// and scale.
func NewBuilderSpec(typ domain.ColumnType, spec DecimalSpec, check bool) Builder {
	switch typ {
	case domain.TypeDecimal:
		return NewDecBuilder(spec, check)
	case domain.TypeInteger:
		return &IntBuilder{Typ: typ, check: check, narrow: true}
	case domain.TypeFloat:
		return &floatBuilder{typ: typ, check: check}
	case domain.TypeBoolean:
		return &boolBuilder{check: check}
	case domain.TypeDate:
		b := newDateBuilder(check)
		return &b
	case domain.TypeTimestamp:
		return &IntBuilder{Typ: typ, check: check}
	case domain.TypeText:
		return &textBuilder{check: check}
	}
	return &InferBuilder{check: check}
}

// IntBuilder builds integer and timestamp (microseconds) columns.
//
// An integer column's values (NewBuilder's) start 32 bits wide (v32) and
// are widened to 64 (Vals) at the first that does not fit: ids, counts
// and amounts in cents mostly fit, in half the memory. A timestamp's are
// 64 bits from the start.
type IntBuilder struct {
	Typ    domain.ColumnType
	check  bool
	narrow bool // the values are in v32, Vals holds none
	v32    []int32
	Vals   []int64
	// roomTo is cap(Vals) when widened: the room up to it was metered at
	// four bytes a value (ReserveBytes), and now takes eight (Size).
	roomTo int
	Mask   nullMask
}

func (b *IntBuilder) push(v int64) error {
	if !b.check {
		b.put(v)
		b.Mask.add(true)
	}
	return nil
}

// put appends v, widening the values first when it does not fit 32 bits.
func (b *IntBuilder) put(v int64) {
	if b.narrow {
		if int64(int32(v)) == v {
			b.v32 = append(b.v32, int32(v))
			return
		}
		b.widen()
	}
	b.Vals = append(b.Vals, v)
}

// widen moves the values from v32 to Vals, keeping the room reserved.
func (b *IntBuilder) widen() {
	b.Vals = widened[int64](b.v32)
	b.roomTo = cap(b.Vals)
	b.v32, b.narrow = nil, false
}

// putAll appends vals, 32 bits wide while every one fits.
func putAll[T Integer](b *IntBuilder, vals []T) {
	if b.narrow {
		i := 0
		b.v32 = slices.Grow(b.v32, len(vals))
		for ; i < len(vals); i++ {
			v := int64(vals[i])
			if int64(int32(v)) != v {
				break
			}
			b.v32 = append(b.v32, int32(v))
		}
		if i == len(vals) {
			return
		}
		b.widen()
		vals = vals[i:]
	}
	b.Vals = slices.Grow(b.Vals, len(vals))
	for _, v := range vals {
		b.Vals = append(b.Vals, int64(v))
	}
}

func (b *IntBuilder) AppendNull() {
	if !b.check {
		b.put(0)
		b.Mask.add(false)
	}
}

func (b *IntBuilder) AppendText(s string) error {
	if b.Typ == domain.TypeTimestamp {
		v, ok := parse.Micros(s)
		if !ok {
			return ErrNotType{b.Typ}
		}
		return b.push(v)
	}
	v, ok := parse.Int(s)
	if !ok {
		return ErrNotType{b.Typ}
	}
	return b.push(v)
}

func (b *IntBuilder) AppendInt(v int64) error {
	if b.Typ == domain.TypeTimestamp {
		return ErrNotType{b.Typ}
	}
	return b.push(v)
}

func (b *IntBuilder) AppendFloat(float64) error { return ErrNotType{b.Typ} }

// AppendDecimal appends a whole decimal that fits an integer.
func (b *IntBuilder) AppendDecimal(v i128.Int, scale int32) error {
	if b.Typ == domain.TypeTimestamp {
		return ErrNotType{b.Typ}
	}
	x, ok := parse.Int(v.Cell(scale).Render())
	if !ok {
		return ErrNotType{b.Typ}
	}
	return b.push(x)
}
func (b *IntBuilder) AppendBool(bool) error { return ErrNotType{b.Typ} }

func (b *IntBuilder) AppendDate(d int32) error {
	if b.Typ == domain.TypeTimestamp {
		return b.push(int64(d) * 86400 * 1e6)
	}
	return ErrNotType{b.Typ}
}

func (b *IntBuilder) AppendMicros(us int64) error {
	if b.Typ != domain.TypeTimestamp {
		return ErrNotType{b.Typ}
	}
	return b.push(us)
}

func (b *IntBuilder) Size() int64 {
	if b.narrow {
		return int64(4*len(b.v32)) + b.Mask.size()
	}
	return int64(8*len(b.Vals)+4*max(b.roomTo-len(b.Vals), 0)) + b.Mask.size()
}

func (b *IntBuilder) Finish(name string) *Column {
	if b.check {
		return nil
	}
	if b.narrow {
		return New(name, b.Typ, wrap(arrow.PrimitiveTypes.Int32, arrow.Int32Traits.CastToBytes(b.v32), len(b.v32), &b.Mask))
	}
	return New(name, b.Typ, wrap(arrow.PrimitiveTypes.Int64, arrow.Int64Traits.CastToBytes(b.Vals), len(b.Vals), &b.Mask))
}

// floatBuilder builds float columns.
type floatBuilder struct {
	typ   domain.ColumnType
	check bool
	vals  []float64
	mask  nullMask
}

func (b *floatBuilder) push(v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ErrNotType{b.typ}
	}
	if !b.check {
		b.vals = append(b.vals, v)
		b.mask.add(true)
	}
	return nil
}

func (b *floatBuilder) AppendNull() {
	if !b.check {
		b.vals = append(b.vals, 0)
		b.mask.add(false)
	}
}

func (b *floatBuilder) AppendText(s string) error {
	v, ok := parse.Float(s)
	if !ok {
		return ErrNotType{b.typ}
	}
	return b.push(v)
}

func (b *floatBuilder) AppendInt(v int64) error     { return b.push(float64(v)) }
func (b *floatBuilder) AppendFloat(v float64) error { return b.push(v) }

// AppendDecimal appends the float64 nearest to the decimal.
func (b *floatBuilder) AppendDecimal(v i128.Int, scale int32) error {
	return b.push(v.Cell(scale).FloatValue())
}
func (b *floatBuilder) AppendBool(bool) error    { return ErrNotType{b.typ} }
func (b *floatBuilder) AppendDate(int32) error   { return ErrNotType{b.typ} }
func (b *floatBuilder) AppendMicros(int64) error { return ErrNotType{b.typ} }
func (b *floatBuilder) Size() int64              { return int64(8*len(b.vals)) + b.mask.size() }

func (b *floatBuilder) Finish(name string) *Column {
	if b.check {
		return nil
	}
	return New(name, b.typ, wrap(arrow.PrimitiveTypes.Float64, arrow.Float64Traits.CastToBytes(b.vals), len(b.vals), &b.mask))
}

// boolBuilder builds boolean columns.
type boolBuilder struct {
	check bool
	vals  bitmap
	mask  nullMask
}

func (b *boolBuilder) push(v bool) error {
	if !b.check {
		b.vals.push(v)
		b.mask.add(true)
	}
	return nil
}

func (b *boolBuilder) AppendNull() {
	if !b.check {
		b.vals.push(false)
		b.mask.add(false)
	}
}

func (b *boolBuilder) AppendText(s string) error {
	v, ok := parse.Bool(s)
	if !ok {
		return ErrNotType{domain.TypeBoolean}
	}
	return b.push(v)
}

func (b *boolBuilder) AppendInt(int64) error     { return ErrNotType{domain.TypeBoolean} }
func (b *boolBuilder) AppendFloat(float64) error { return ErrNotType{domain.TypeBoolean} }
func (b *boolBuilder) AppendDecimal(i128.Int, int32) error {
	return ErrNotType{domain.TypeBoolean}
}
func (b *boolBuilder) AppendBool(v bool) error  { return b.push(v) }
func (b *boolBuilder) AppendDate(int32) error   { return ErrNotType{domain.TypeBoolean} }
func (b *boolBuilder) AppendMicros(int64) error { return ErrNotType{domain.TypeBoolean} }
func (b *boolBuilder) Size() int64              { return int64(len(b.vals.b)) + b.mask.size() }

func (b *boolBuilder) Finish(name string) *Column {
	if b.check {
		return nil
	}
	return New(name, domain.TypeBoolean, wrap(arrow.FixedWidthTypes.Boolean, b.vals.b, b.vals.n, &b.mask))
}

// dateBuilder builds date columns.
//
// Its days start as two bytes a row, offsets from a base day 32,768 days
// before the first (d16), and are widened to Date32 (vals) at the first
// day that does not fit: a column of dates within 89 years of its first
// takes half the memory.
type dateBuilder struct {
	check  bool
	narrow bool // the days are in d16, vals holds none
	based  bool // base is set (at the first day)
	base   int32
	d16    []uint16
	vals   []arrow.Date32
	// roomTo is cap(vals) when widened: the room up to it was metered at
	// two bytes a row (ReserveBytes), and now takes four (Size).
	roomTo int
	mask   nullMask
	// probed and repeated count the first dates the texts appended held
	// (up to dateProbe), and those that repeated the one before them
	// (appendRun).
	probed, repeated int
}

// DaysFit16 reports whether a date builder keeps days from lo to hi two
// bytes each, whatever their order: it numbers them from 32,768 before
// the first it meets, so days at most 32,767 apart always fit. The
// fill's estimates use it (a Parquet file's statistics, a text file's
// whole read).
func DaysFit16(lo, hi int32) bool { return int64(hi)-int64(lo) <= 1<<15-1 }

func newDateBuilder(check bool) dateBuilder { return dateBuilder{check: check, narrow: true} }

func (b *dateBuilder) push(d int32) error {
	if !b.check {
		b.put(d)
		b.mask.add(true)
	}
	return nil
}

// put appends day d, widening the days first when it does not fit.
func (b *dateBuilder) put(d int32) {
	if b.narrow {
		if !b.based {
			b.base, b.based = d-1<<15, true
		}
		if o := int64(d) - int64(b.base); o >= 0 && o <= math.MaxUint16 {
			b.d16 = append(b.d16, uint16(o))
			return
		}
		b.widen()
	}
	b.vals = append(b.vals, arrow.Date32(d))
}

// widen moves the days from d16 to vals, keeping the room reserved. A
// null's day is the base's (or 0 before any day), as a wide null's 0 is
// read by no one.
func (b *dateBuilder) widen() {
	b.vals = grow.To(b.vals[:0], cap(b.d16))[:len(b.d16)]
	for i, o := range b.d16 {
		b.vals[i] = arrow.Date32(b.base + int32(o))
	}
	b.roomTo = cap(b.vals)
	b.d16, b.narrow = nil, false
}

// putDays appends the days of src, each base more than its value.
func putDays[T DayValue](b *dateBuilder, src []T, base int32) {
	if b.narrow {
		b.d16 = slices.Grow(b.d16, len(src))
		for i, v := range src {
			d := base + int32(v)
			if !b.based {
				b.base, b.based = d-1<<15, true
			}
			o := int64(d) - int64(b.base)
			if o < 0 || o > math.MaxUint16 {
				src = src[i:]
				b.widen()
				break
			}
			b.d16 = append(b.d16, uint16(o))
		}
		if b.narrow {
			return
		}
	}
	b.vals = slices.Grow(b.vals, len(src))
	for _, v := range src {
		b.vals = append(b.vals, arrow.Date32(base+int32(v)))
	}
}

func (b *dateBuilder) AppendNull() {
	if !b.check {
		if b.narrow {
			b.d16 = append(b.d16, 0)
		} else {
			b.vals = append(b.vals, 0)
		}
		b.mask.add(false)
	}
}

func (b *dateBuilder) AppendText(s string) error {
	d, ok := parse.Day(s)
	if !ok {
		return ErrNotType{domain.TypeDate}
	}
	return b.push(d)
}

func (b *dateBuilder) AppendInt(int64) error     { return ErrNotType{domain.TypeDate} }
func (b *dateBuilder) AppendFloat(float64) error { return ErrNotType{domain.TypeDate} }
func (b *dateBuilder) AppendDecimal(i128.Int, int32) error {
	return ErrNotType{domain.TypeDate}
}
func (b *dateBuilder) AppendBool(bool) error    { return ErrNotType{domain.TypeDate} }
func (b *dateBuilder) AppendDate(d int32) error { return b.push(d) }
func (b *dateBuilder) AppendMicros(int64) error { return ErrNotType{domain.TypeDate} }
func (b *dateBuilder) Size() int64 {
	if b.narrow {
		return int64(2*len(b.d16)) + b.mask.size()
	}
	return int64(4*len(b.vals)+2*max(b.roomTo-len(b.vals), 0)) + b.mask.size()
}

func (b *dateBuilder) Finish(name string) *Column {
	if b.check {
		return nil
	}
	if b.narrow {
		c := New(name, domain.TypeDate, wrap(arrow.PrimitiveTypes.Uint16, arrow.Uint16Traits.CastToBytes(b.d16), len(b.d16), &b.mask))
		c.DayBase = b.base
		return c
	}
	return New(name, domain.TypeDate, wrap(arrow.FixedWidthTypes.Date32, arrow.Date32Traits.CastToBytes(b.vals), len(b.vals), &b.mask))
}

// InferBuilder keeps an undeclared column's text and the types every value
// so far parses as; finish picks the first type of integer, float,
// boolean, date, timestamp that every value parses as, else text. A probe
// keeps no text: it only finds the type (inferred), for a column that is
// then streamed.
type InferBuilder struct {
	check bool
	Probe bool
	vals  []string
	mask  nullMask
	bytes int64
	// can[i] reports whether every value parses as inferOrder[i].
	can     [5]bool
	started bool
	// dec records that a value arrived as a decimal (a Parquet DECIMAL):
	// a column of numbers with one is decimal.
	dec bool
}

var inferOrder = [5]domain.ColumnType{
	domain.TypeInteger, domain.TypeFloat, domain.TypeBoolean, domain.TypeDate, domain.TypeTimestamp,
}

func (b *InferBuilder) AppendNull() {
	if !b.check && !b.Probe {
		b.vals = append(b.vals, "")
		b.mask.add(false)
	}
}

func (b *InferBuilder) AppendText(s string) error {
	if b.check {
		return nil
	}
	if !b.started {
		b.can = [5]bool{true, true, true, true, true}
		b.started = true
	}
	if b.can[0] {
		_, b.can[0] = parse.Int(s)
	}
	if b.can[1] {
		_, b.can[1] = parse.Float(s)
	}
	if b.can[2] {
		_, b.can[2] = parse.Bool(s)
	}
	if b.can[3] {
		_, b.can[3] = parse.Day(s)
	}
	if b.can[4] {
		_, b.can[4] = parse.Micros(s)
	}
	if b.Probe {
		return nil
	}
	s = strings.Clone(s)
	b.vals = append(b.vals, s)
	b.mask.add(true)
	b.bytes += int64(len(s)) + 17
	return nil
}

func (b *InferBuilder) AppendInt(v int64) error     { return b.AppendText(strconv.FormatInt(v, 10)) }
func (b *InferBuilder) AppendFloat(v float64) error { return b.AppendText(domain.Float(v).Render()) }
func (b *InferBuilder) AppendBool(v bool) error     { return b.AppendText(strconv.FormatBool(v)) }
func (b *InferBuilder) AppendDecimal(v i128.Int, scale int32) error {
	b.dec = true
	return b.AppendText(v.Cell(scale).Render())
}
func (b *InferBuilder) AppendDate(d int32) error   { return b.AppendText(domain.Date(d).String()) }
func (b *InferBuilder) AppendMicros(v int64) error { return b.AppendText(RenderTimestamp(v)) }
func (b *InferBuilder) Size() int64                { return b.bytes + int64(len(b.vals)) }

// Inferred is the type finish resolves.
func (b *InferBuilder) Inferred() domain.ColumnType {
	if b.started && b.dec && (b.can[0] || b.can[1]) {
		return domain.TypeDecimal
	}
	if b.started {
		for i, ok := range b.can {
			if ok {
				return inferOrder[i]
			}
		}
	}
	return domain.TypeText
}

func (b *InferBuilder) Finish(name string) *Column {
	if b.check {
		return nil
	}
	typ := b.Inferred()
	out := NewBuilder(typ, false)
	for i, s := range b.vals {
		if !b.mask.isValid(i) {
			out.AppendNull()
			continue
		}
		_ = out.AppendText(s) // every value parses: that is how typ was chosen
	}
	return out.Finish(name)
}

// ValidBuilder keeps only which values are null: a column wanted for its
// validity alone (the input of count or is_not_null). Its values are never
// parsed, so no value of it can fail to load.
type ValidBuilder struct {
	Typ   domain.ColumnType
	Check bool
	mask  nullMask
}

func (b *ValidBuilder) Add(ok bool) {
	if !b.Check {
		b.mask.add(ok)
	}
}

func (b *ValidBuilder) AppendNull()               { b.Add(false) }
func (b *ValidBuilder) AppendText(string) error   { b.Add(true); return nil }
func (b *ValidBuilder) AppendInt(int64) error     { b.Add(true); return nil }
func (b *ValidBuilder) AppendFloat(float64) error { b.Add(true); return nil }
func (b *ValidBuilder) AppendDecimal(i128.Int, int32) error {
	b.Add(true)
	return nil
}
func (b *ValidBuilder) AppendBool(bool) error    { b.Add(true); return nil }
func (b *ValidBuilder) AppendDate(int32) error   { b.Add(true); return nil }
func (b *ValidBuilder) AppendMicros(int64) error { b.Add(true); return nil }
func (b *ValidBuilder) Size() int64              { return b.mask.size() }

// AppendArray takes the validity of a non-text array whole; text goes
// value by value, since empty text is null.
func (b *ValidBuilder) AppendArray(arr arrow.Array) bool {
	switch arr.(type) {
	case *array.String, *array.LargeString, *array.Dictionary:
		return false
	}
	if !b.Check {
		b.mask.addArray(arr)
	}
	return true
}

func (b *ValidBuilder) Finish(name string) *Column {
	if b.Check {
		return nil
	}
	c := &Column{Name: name, Type: b.Typ, N: b.mask.n, ValidOnly: true, ID: ColumnIDs.Add(1)}
	c.Valid = b.mask.validity()
	c.Bytes = int64(cap(c.Valid)) + 64
	return c
}

// ViaText converts every typed value to its canonical text before the
// builder under it parses it: how a column whose type was inferred from
// its text reads a typed file (a Parquet real 2.0 is the integer 2 when
// every value of the column is whole).
type ViaText struct{ Builder }

func (b ViaText) AppendInt(v int64) error     { return b.Builder.AppendText(strconv.FormatInt(v, 10)) }
func (b ViaText) AppendFloat(v float64) error { return b.Builder.AppendText(domain.Float(v).Render()) }
func (b ViaText) AppendDecimal(v i128.Int, scale int32) error {
	if ib, ok := b.Builder.(*InferBuilder); ok {
		return ib.AppendDecimal(v, scale)
	}
	return b.Builder.AppendText(v.Cell(scale).Render())
}
func (b ViaText) AppendBool(v bool) error    { return b.Builder.AppendText(strconv.FormatBool(v)) }
func (b ViaText) AppendDate(d int32) error   { return b.Builder.AppendText(domain.Date(d).String()) }
func (b ViaText) AppendMicros(v int64) error { return b.Builder.AppendText(RenderTimestamp(v)) }
