package check

import (
	"math"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/format"
)

// Days is the first and the last day (days since 1970-01-01, both
// included) on which a date or timestamp column holds a value, as a read
// of its text found them; Lo > Hi when it held none.
type Days struct{ Lo, Hi int32 }

// noDays is the range of a column that held no value yet.
var noDays = Days{Lo: math.MaxInt32, Hi: math.MinInt32}

func (d Days) union(o Days) Days { return Days{Lo: min(d.Lo, o.Lo), Hi: max(d.Hi, o.Hi)} }

// dayBuilder is a check builder of a date or timestamp column that also
// keeps the days its values fall on: the text is parsed once, here, with
// the parser (and the error) of the column's own builder.
type dayBuilder struct {
	column.Builder
	typ  domain.ColumnType
	days Days
}

func (b *dayBuilder) AppendText(s string) error {
	if b.typ == domain.TypeDate {
		d, ok := column.ParseDay(s)
		if !ok {
			return column.ErrNotType{Type: domain.TypeDate}
		}
		return b.AppendDate(d)
	}
	us, ok := column.ParseMicros(s)
	if !ok {
		return column.ErrNotType{Type: b.typ}
	}
	return b.AppendMicros(us)
}

func (b *dayBuilder) AppendDate(d int32) error {
	if err := b.Builder.AppendDate(d); err != nil {
		return err
	}
	b.days = b.days.union(Days{d, d})
	return nil
}

func (b *dayBuilder) AppendMicros(us int64) error {
	if err := b.Builder.AppendMicros(us); err != nil {
		return err
	}
	d := column.DayOfMicros(us)
	b.days = b.days.union(Days{d, d})
	return nil
}

// trackDays wraps the builders of l's date and timestamp columns so the
// read keeps their days; days returns them by column once read.
func trackDays(l *format.Loader, wants []format.Want) (days func() map[string]Days) {
	track := map[string]*dayBuilder{}
	for i, w := range wants {
		if w.Type == domain.TypeDate || w.Type == domain.TypeTimestamp {
			b := &dayBuilder{Builder: l.Builders[i], typ: w.Type, days: noDays}
			l.Builders[i], track[w.Name] = b, b
		}
	}
	return func() map[string]Days {
		out := make(map[string]Days, len(track))
		for name, b := range track {
			out[name] = b.days
		}
		return out
	}
}
