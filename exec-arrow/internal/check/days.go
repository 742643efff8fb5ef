package check

import (
	"math"
	"sync"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/files"
	"sutura.dev/exec-arrow/internal/format"
	"sutura.dev/exec-arrow/internal/parse"
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
		d, ok := parse.Day(s)
		if !ok {
			return column.ErrNotType{Type: domain.TypeDate}
		}
		return b.AppendDate(d)
	}
	us, ok := parse.Micros(s)
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

// Scanned are the days the engine's scans found over a table's text parts:
// a scan that read every record of every text part of a table parses
// each time column it tests for every record, so the first and last day
// it met are the column's (Engine.DataSpan then reads nothing). What it
// holds of a table is for the identity of the files scanned
// (files.Table.ID): a scan of changed files replaces it, and a table whose
// files changed since has nothing. The zero value holds nothing; it is
// safe for concurrent use.
type Scanned struct {
	mu     sync.Mutex
	tables map[string]scannedTable // by bare table name
}

type scannedTable struct {
	id   string
	days map[columnKey]Days
}

type columnKey struct {
	name string
	typ  domain.ColumnType
}

// ColumnDays are the days a scan found one column holds, read as Type.
type ColumnDays struct {
	Name string
	Type domain.ColumnType
	Days Days
}

// Record records what one complete scan of tf found over its text parts.
func (s *Scanned) Record(tf *files.Table, found []ColumnDays) {
	if len(found) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tables == nil {
		s.tables = map[string]scannedTable{}
	}
	t := s.tables[tf.Name]
	if t.id != tf.ID {
		t = scannedTable{id: tf.ID, days: map[columnKey]Days{}}
		s.tables[tf.Name] = t
	}
	for _, c := range found {
		t.days[columnKey{c.Name, c.Type}] = c.Days
	}
}

// Days returns the days a complete scan of tf (these very files) found
// column (read as typ) holds over its text parts (ok); Lo > Hi when it
// held none.
func (s *Scanned) Days(tf *files.Table, column string, typ domain.ColumnType) (days Days, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tables[tf.Name]
	if t.id != tf.ID {
		return Days{}, false
	}
	days, ok = t.days[columnKey{column, typ}]
	return days, ok
}
