package engine

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"sutura.dev/domain"
)

// errNotType is the problem of a value that is not of its column's type.
// It never carries the value.
type errNotType struct{ typ domain.ColumnType }

func (e errNotType) Error() string { return "value does not parse as " + string(e.typ) }

var errNotScalar = errors.New("value is not a scalar")

// builder accumulates one column while a file is read. Values arrive as
// text (CSV, NDJSON) or typed (Parquet); each builder accepts what converts
// exactly into its type and reports errNotType otherwise. A builder in
// check mode parses but keeps nothing: start-up validation uses it.
type builder interface {
	appendNull()
	appendText(s string) error
	appendInt(v int64) error
	appendFloat(v float64) error
	appendBool(v bool) error
	appendDate(d int32) error
	appendMicros(us int64) error
	// size estimates the bytes held so far.
	size() int64
	// finish returns the built column, or nil in check mode.
	finish(name string) *column
}

// newBuilder returns the builder of a column of declared type typ;
// TypeUnset collects text and infers the type at finish.
func newBuilder(typ domain.ColumnType, check bool) builder {
	switch typ {
	case domain.TypeInteger:
		return &intBuilder{typ: typ, check: check}
	case domain.TypeFloat, domain.TypeDecimal:
		return &floatBuilder{typ: typ, check: check}
	case domain.TypeBoolean:
		return &boolBuilder{check: check}
	case domain.TypeDate:
		return &dateBuilder{check: check}
	case domain.TypeTimestamp:
		return &intBuilder{typ: typ, check: check}
	case domain.TypeText:
		return &textBuilder{check: check}
	}
	return &inferBuilder{check: check}
}

// Text parsers of the file formats' value syntax.

func parseInt(s string) (int64, bool) {
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil
}

func parseFloat(s string) (float64, bool) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

func parseBool(s string) (bool, bool) {
	switch s {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

func parseDay(s string) (int32, bool) {
	d, err := domain.ParseDate(s)
	return int32(d), err == nil
}

func parseMicros(s string) (int64, bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, false
	}
	return t.UnixMicro(), true
}

// nullMask records validity while building; shared by the typed builders.
type nullMask struct {
	n     int    // values recorded
	valid []bool // per value; nil until the first null, as most columns have none
	nulls int
}

func (m *nullMask) add(ok bool) {
	if !ok && m.valid == nil {
		m.valid = make([]bool, m.n, max(m.n+1, 2*m.n))
		for i := range m.valid {
			m.valid[i] = true
		}
	}
	if m.valid != nil {
		m.valid = append(m.valid, ok)
	}
	m.n++
	if !ok {
		m.nulls++
	}
}

// isValid reports whether value i is present.
func (m *nullMask) isValid(i int) bool { return m.valid == nil || m.valid[i] }

func (m *nullMask) validity() []bool {
	if m.nulls == 0 {
		return nil
	}
	return m.valid
}

// intBuilder builds integer and timestamp (microseconds) columns.
type intBuilder struct {
	typ   domain.ColumnType
	check bool
	vals  []int64
	mask  nullMask
}

func (b *intBuilder) push(v int64) error {
	if !b.check {
		b.vals = append(b.vals, v)
		b.mask.add(true)
	}
	return nil
}

func (b *intBuilder) appendNull() {
	if !b.check {
		b.vals = append(b.vals, 0)
		b.mask.add(false)
	}
}

func (b *intBuilder) appendText(s string) error {
	if b.typ == domain.TypeTimestamp {
		v, ok := parseMicros(s)
		if !ok {
			return errNotType{b.typ}
		}
		return b.push(v)
	}
	v, ok := parseInt(s)
	if !ok {
		return errNotType{b.typ}
	}
	return b.push(v)
}

func (b *intBuilder) appendInt(v int64) error {
	if b.typ == domain.TypeTimestamp {
		return errNotType{b.typ}
	}
	return b.push(v)
}

func (b *intBuilder) appendFloat(float64) error { return errNotType{b.typ} }
func (b *intBuilder) appendBool(bool) error     { return errNotType{b.typ} }

func (b *intBuilder) appendDate(d int32) error {
	if b.typ == domain.TypeTimestamp {
		return b.push(int64(d) * 86400 * 1e6)
	}
	return errNotType{b.typ}
}

func (b *intBuilder) appendMicros(us int64) error {
	if b.typ != domain.TypeTimestamp {
		return errNotType{b.typ}
	}
	return b.push(us)
}

func (b *intBuilder) size() int64 { return int64(9 * len(b.vals)) }

func (b *intBuilder) finish(name string) *column {
	if b.check {
		return nil
	}
	return newColumn(name, b.typ, wrap(arrow.PrimitiveTypes.Int64, arrow.Int64Traits.CastToBytes(b.vals), len(b.vals), &b.mask))
}

// floatBuilder builds float and decimal columns as float64.
type floatBuilder struct {
	typ   domain.ColumnType
	check bool
	vals  []float64
	mask  nullMask
}

func (b *floatBuilder) push(v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return errNotType{b.typ}
	}
	if !b.check {
		b.vals = append(b.vals, v)
		b.mask.add(true)
	}
	return nil
}

func (b *floatBuilder) appendNull() {
	if !b.check {
		b.vals = append(b.vals, 0)
		b.mask.add(false)
	}
}

func (b *floatBuilder) appendText(s string) error {
	v, ok := parseFloat(s)
	if !ok {
		return errNotType{b.typ}
	}
	return b.push(v)
}

func (b *floatBuilder) appendInt(v int64) error     { return b.push(float64(v)) }
func (b *floatBuilder) appendFloat(v float64) error { return b.push(v) }
func (b *floatBuilder) appendBool(bool) error       { return errNotType{b.typ} }
func (b *floatBuilder) appendDate(int32) error      { return errNotType{b.typ} }
func (b *floatBuilder) appendMicros(int64) error    { return errNotType{b.typ} }
func (b *floatBuilder) size() int64                 { return int64(9 * len(b.vals)) }

func (b *floatBuilder) finish(name string) *column {
	if b.check {
		return nil
	}
	return newColumn(name, b.typ, wrap(arrow.PrimitiveTypes.Float64, arrow.Float64Traits.CastToBytes(b.vals), len(b.vals), &b.mask))
}

// boolBuilder builds boolean columns.
type boolBuilder struct {
	check bool
	vals  []bool
	mask  nullMask
}

func (b *boolBuilder) push(v bool) error {
	if !b.check {
		b.vals = append(b.vals, v)
		b.mask.add(true)
	}
	return nil
}

func (b *boolBuilder) appendNull() {
	if !b.check {
		b.vals = append(b.vals, false)
		b.mask.add(false)
	}
}

func (b *boolBuilder) appendText(s string) error {
	v, ok := parseBool(s)
	if !ok {
		return errNotType{domain.TypeBoolean}
	}
	return b.push(v)
}

func (b *boolBuilder) appendInt(int64) error     { return errNotType{domain.TypeBoolean} }
func (b *boolBuilder) appendFloat(float64) error { return errNotType{domain.TypeBoolean} }
func (b *boolBuilder) appendBool(v bool) error   { return b.push(v) }
func (b *boolBuilder) appendDate(int32) error    { return errNotType{domain.TypeBoolean} }
func (b *boolBuilder) appendMicros(int64) error  { return errNotType{domain.TypeBoolean} }
func (b *boolBuilder) size() int64               { return int64(2 * len(b.vals)) }

func (b *boolBuilder) finish(name string) *column {
	if b.check {
		return nil
	}
	bl := array.NewBooleanBuilder(memory.DefaultAllocator)
	bl.AppendValues(b.vals, b.mask.validity())
	return newColumn(name, domain.TypeBoolean, bl.NewArray())
}

// dateBuilder builds date columns.
type dateBuilder struct {
	check bool
	vals  []arrow.Date32
	mask  nullMask
}

func (b *dateBuilder) push(d int32) error {
	if !b.check {
		b.vals = append(b.vals, arrow.Date32(d))
		b.mask.add(true)
	}
	return nil
}

func (b *dateBuilder) appendNull() {
	if !b.check {
		b.vals = append(b.vals, 0)
		b.mask.add(false)
	}
}

func (b *dateBuilder) appendText(s string) error {
	d, ok := parseDay(s)
	if !ok {
		return errNotType{domain.TypeDate}
	}
	return b.push(d)
}

func (b *dateBuilder) appendInt(int64) error     { return errNotType{domain.TypeDate} }
func (b *dateBuilder) appendFloat(float64) error { return errNotType{domain.TypeDate} }
func (b *dateBuilder) appendBool(bool) error     { return errNotType{domain.TypeDate} }
func (b *dateBuilder) appendDate(d int32) error  { return b.push(d) }
func (b *dateBuilder) appendMicros(int64) error  { return errNotType{domain.TypeDate} }
func (b *dateBuilder) size() int64               { return int64(5 * len(b.vals)) }

func (b *dateBuilder) finish(name string) *column {
	if b.check {
		return nil
	}
	return newColumn(name, domain.TypeDate, wrap(arrow.FixedWidthTypes.Date32, arrow.Date32Traits.CastToBytes(b.vals), len(b.vals), &b.mask))
}

// textBuilder builds text columns dictionary-encoded.
type textBuilder struct {
	check bool
	seen  map[string]int32
	dict  []string
	bytes int64
	idx   []int32
	mask  nullMask
}

func (b *textBuilder) appendNull() {
	if !b.check {
		b.idx = append(b.idx, 0)
		b.mask.add(false)
	}
}

func (b *textBuilder) appendText(s string) error {
	if b.check {
		return nil
	}
	b.idx = append(b.idx, b.intern(s))
	b.mask.add(true)
	return nil
}

// intern returns the dictionary code of s, adding it when new.
func (b *textBuilder) intern(s string) int32 {
	if b.seen == nil {
		b.seen = map[string]int32{}
	}
	k, ok := b.seen[s]
	if !ok {
		s = strings.Clone(s) // the reader's buffer is not ours to keep
		k = int32(len(b.dict))
		b.dict = append(b.dict, s)
		b.seen[s] = k
		b.bytes += int64(len(s)) + 64
	}
	return k
}

func (b *textBuilder) appendInt(v int64) error { return b.appendText(strconv.FormatInt(v, 10)) }
func (b *textBuilder) appendFloat(v float64) error {
	return b.appendText(domain.Float(v).Render())
}
func (b *textBuilder) appendBool(v bool) error    { return b.appendText(strconv.FormatBool(v)) }
func (b *textBuilder) appendDate(d int32) error   { return b.appendText(domain.Date(d).String()) }
func (b *textBuilder) appendMicros(v int64) error { return b.appendText(renderTimestamp(v)) }
func (b *textBuilder) size() int64                { return int64(5*len(b.idx)) + b.bytes }

func (b *textBuilder) finish(name string) *column {
	if b.check {
		return nil
	}
	indices := wrap(arrow.PrimitiveTypes.Int32, arrow.Int32Traits.CastToBytes(b.idx), len(b.idx), &b.mask)
	sb := array.NewStringBuilder(memory.DefaultAllocator)
	sb.AppendValues(b.dict, nil)
	dict := sb.NewArray()
	typ := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
	arr := array.NewDictionaryArray(typ, indices, dict)
	indices.Release()
	dict.Release()
	return newColumn(name, domain.TypeText, arr)
}

// inferBuilder keeps an undeclared column's text and the types every value
// so far parses as; finish picks the first type of integer, float,
// boolean, date, timestamp that every value parses as, else text. A probe
// keeps no text: it only finds the type (inferred), for a column that is
// then streamed.
type inferBuilder struct {
	check bool
	probe bool
	vals  []string
	mask  nullMask
	bytes int64
	// can[i] reports whether every value parses as inferOrder[i].
	can     [5]bool
	started bool
}

var inferOrder = [5]domain.ColumnType{
	domain.TypeInteger, domain.TypeFloat, domain.TypeBoolean, domain.TypeDate, domain.TypeTimestamp,
}

func (b *inferBuilder) appendNull() {
	if !b.check && !b.probe {
		b.vals = append(b.vals, "")
		b.mask.add(false)
	}
}

func (b *inferBuilder) appendText(s string) error {
	if b.check {
		return nil
	}
	if !b.started {
		b.can = [5]bool{true, true, true, true, true}
		b.started = true
	}
	if b.can[0] {
		_, b.can[0] = parseInt(s)
	}
	if b.can[1] {
		_, b.can[1] = parseFloat(s)
	}
	if b.can[2] {
		_, b.can[2] = parseBool(s)
	}
	if b.can[3] {
		_, b.can[3] = parseDay(s)
	}
	if b.can[4] {
		_, b.can[4] = parseMicros(s)
	}
	if b.probe {
		return nil
	}
	s = strings.Clone(s)
	b.vals = append(b.vals, s)
	b.mask.add(true)
	b.bytes += int64(len(s)) + 17
	return nil
}

func (b *inferBuilder) appendInt(v int64) error     { return b.appendText(strconv.FormatInt(v, 10)) }
func (b *inferBuilder) appendFloat(v float64) error { return b.appendText(domain.Float(v).Render()) }
func (b *inferBuilder) appendBool(v bool) error     { return b.appendText(strconv.FormatBool(v)) }
func (b *inferBuilder) appendDate(d int32) error    { return b.appendText(domain.Date(d).String()) }
func (b *inferBuilder) appendMicros(v int64) error  { return b.appendText(renderTimestamp(v)) }
func (b *inferBuilder) size() int64                 { return b.bytes + int64(len(b.vals)) }

// inferred is the type finish resolves.
func (b *inferBuilder) inferred() domain.ColumnType {
	if b.started {
		for i, ok := range b.can {
			if ok {
				return inferOrder[i]
			}
		}
	}
	return domain.TypeText
}

func (b *inferBuilder) finish(name string) *column {
	if b.check {
		return nil
	}
	typ := b.inferred()
	out := newBuilder(typ, false)
	for i, s := range b.vals {
		if !b.mask.isValid(i) {
			out.appendNull()
			continue
		}
		_ = out.appendText(s) // every value parses: that is how typ was chosen
	}
	return out.finish(name)
}

// validBuilder keeps only which values are null: a column wanted for its
// validity alone (the input of count or is_not_null). Its values are never
// parsed, so no value of it can fail to load.
type validBuilder struct {
	typ   domain.ColumnType
	check bool
	mask  nullMask
}

func (b *validBuilder) add(ok bool) {
	if !b.check {
		b.mask.add(ok)
	}
}

func (b *validBuilder) appendNull()               { b.add(false) }
func (b *validBuilder) appendText(string) error   { b.add(true); return nil }
func (b *validBuilder) appendInt(int64) error     { b.add(true); return nil }
func (b *validBuilder) appendFloat(float64) error { b.add(true); return nil }
func (b *validBuilder) appendBool(bool) error     { b.add(true); return nil }
func (b *validBuilder) appendDate(int32) error    { b.add(true); return nil }
func (b *validBuilder) appendMicros(int64) error  { b.add(true); return nil }
func (b *validBuilder) size() int64               { return int64(len(b.mask.valid)) + int64(b.mask.n/8) }

// appendArray takes the validity of a non-text array whole; text goes
// value by value, since empty text is null.
func (b *validBuilder) appendArray(arr arrow.Array) bool {
	switch arr.(type) {
	case *array.String, *array.LargeString, *array.Dictionary:
		return false
	}
	if !b.check {
		b.mask.addArray(arr)
	}
	return true
}

func (b *validBuilder) finish(name string) *column {
	if b.check {
		return nil
	}
	c := &column{name: name, typ: b.typ, n: b.mask.n, validOnly: true, id: columnIDs.Add(1)}
	if v := b.mask.validity(); v != nil {
		c.valid = make([]byte, bitutil.BytesForBits(int64(c.n)))
		for i, ok := range v {
			if ok {
				bitutil.SetBit(c.valid, i)
			}
		}
	}
	c.bytes = int64(len(c.valid)) + 64
	return c
}

// viaText converts every typed value to its canonical text before the
// builder under it parses it: how a column whose type was inferred from
// its text reads a typed file (a Parquet real 2.0 is the integer 2 when
// every value of the column is whole).
type viaText struct{ builder }

func (b viaText) appendInt(v int64) error     { return b.builder.appendText(strconv.FormatInt(v, 10)) }
func (b viaText) appendFloat(v float64) error { return b.builder.appendText(domain.Float(v).Render()) }
func (b viaText) appendBool(v bool) error     { return b.builder.appendText(strconv.FormatBool(v)) }
func (b viaText) appendDate(d int32) error    { return b.builder.appendText(domain.Date(d).String()) }
func (b viaText) appendMicros(v int64) error  { return b.builder.appendText(renderTimestamp(v)) }
