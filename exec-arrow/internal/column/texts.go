package column

import (
	"slices"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/parse"
)

// textRun is a builder that appends a run of texts at once, each as
// AppendText would, without a call and a validity update a value (a CSV
// block's integers, dates and booleans, most of a text start's parsing):
// it appends texts up to the first empty one, or to one its run cannot
// take (an integer wider than the values so far), and returns how many,
// or the error of a text it refuses.
type textRun interface {
	appendRun(texts []string) (int, error)
}

func (b *IntBuilder) appendRun(texts []string) (int, error) {
	n := 0
	var err error
	if b.Typ == domain.TypeTimestamp {
		for _, s := range texts {
			v, ok := parse.Micros(s)
			if !ok {
				err = refusedText(s, b.Typ)
				break
			}
			if !b.check {
				b.put(v)
			}
			n++
		}
	} else {
		for _, s := range texts {
			v, ok := parse.Int(s)
			if !ok {
				err = refusedText(s, b.Typ)
				break
			}
			if !b.check {
				b.put(v)
			}
			n++
		}
	}
	if !b.check {
		b.Mask.AddValid(n)
	}
	return n, err
}

// appendRun parses a run of dates. A date that is the same text as the
// one before it is not parsed again when the builder's first dateProbe
// dates repeated so at least half the time: a file written in the order
// of its dates (a log, an export by day) holds each date for a day's
// rows, and comparing two words costs a fraction of parsing them. Dates
// in no order are parsed one by one past the probe (BenchmarkAppendTexts).
func (b *dateBuilder) appendRun(texts []string) (int, error) {
	n := 0
	var err error
	if b.probed < dateProbe {
		var r int
		n, r, err = b.datesRepeated(texts[:min(len(texts), dateProbe-b.probed)])
		b.probed, b.repeated = b.probed+n, b.repeated+r
	}
	if err == nil && n < len(texts) {
		var m int
		if 2*b.repeated >= b.probed {
			m, _, err = b.datesRepeated(texts[n:])
		} else {
			m, err = b.dates(texts[n:])
		}
		n += m
	}
	if !b.check {
		b.mask.AddValid(n)
	}
	return n, err
}

// dateProbe is how many dates of a builder tell whether they repeat.
const dateProbe = 64

// dates parses each of texts, up to the first that is not a date; it
// returns how many it put.
func (b *dateBuilder) dates(texts []string) (int, error) {
	for i, s := range texts {
		d, ok := parse.Day(s)
		if !ok {
			return i, refusedText(s, domain.TypeDate)
		}
		if !b.check {
			b.put(d)
		}
	}
	return len(texts), nil
}

// datesRepeated is dates, parsing only a text that differs from the one
// before it; it also returns how many did not.
func (b *dateBuilder) datesRepeated(texts []string) (n, repeats int, err error) {
	var lastA, lastB uint64 // the words of the last date parsed
	var last int32
	for i, s := range texts {
		if len(s) != 10 {
			return i, repeats, refusedText(s, domain.TypeDate)
		}
		a, w := parse.Word(s, 0), uint64(s[8])|uint64(s[9])<<8
		d := last
		if i == 0 || a != lastA || w != lastB {
			var ok bool
			if d, ok = parse.DayOfWords(a, w); !ok {
				return i, repeats, refusedText(s, domain.TypeDate)
			}
			lastA, lastB, last = a, w, d
		} else {
			repeats++
		}
		if !b.check {
			b.put(d)
		}
	}
	return len(texts), repeats, nil
}

func (b *boolBuilder) appendRun(texts []string) (int, error) {
	n := 0
	var err error
	for _, s := range texts {
		v, ok := parse.Bool(s)
		if !ok {
			err = refusedText(s, domain.TypeBoolean)
			break
		}
		if !b.check {
			b.vals.push(v)
		}
		n++
	}
	if !b.check {
		b.mask.AddValid(n)
	}
	return n, err
}

// refusedText is the error of text s that a builder of typ cannot take;
// nil for an empty text, which ends a run (a null).
func refusedText(s string, typ domain.ColumnType) error {
	if s == "" {
		return nil
	}
	return ErrNotType{typ}
}

// nullsAppender is a builder that appends a run of nulls at once.
type nullsAppender interface{ appendNulls(n int) }

// AppendTexts appends texts to b as AppendText does, an empty text as a
// null; so is text k when keep is not nil and its bit k is clear (a row
// a selection dropped is not parsed). A run of nulls is appended at once
// where b can, and eight dropped rows of a clear byte of keep are passed
// over at once: a selective filter drops most rows.
func AppendTexts(b Builder, texts []string, keep []byte) error {
	tr, runs := b.(textRun)
	if keep == nil {
		for k := 0; k < len(texts); {
			if runs {
				n, err := tr.appendRun(texts[k:])
				if k += n; err != nil || k == len(texts) {
					return err
				}
			}
			v := texts[k]
			k++
			if v == "" {
				b.AppendNull()
				continue
			}
			if err := b.AppendText(v); err != nil {
				return err
			}
		}
		return nil
	}
	nulls := 0
	for k := 0; k < len(texts); {
		if k&7 == 0 && k+8 <= len(texts) {
			switch keep[k>>3] {
			case 0:
				nulls, k = nulls+8, k+8
				continue
			case 0xff:
				if !runs {
					break
				}
				// Whole bytes of kept rows: their texts appended as a
				// run, up to the first empty one.
				e := k + 8
				for e+8 <= len(texts) && keep[e>>3] == 0xff {
					e += 8
				}
				appendNulls(b, nulls)
				nulls = 0
				n, err := tr.appendRun(texts[k:e])
				if err != nil {
					return err
				}
				if k += n; n > 0 {
					continue
				}
			}
		}
		v := texts[k]
		if v == "" || keep[k>>3]&(1<<(k&7)) == 0 {
			nulls, k = nulls+1, k+1
			continue
		}
		k++
		appendNulls(b, nulls)
		nulls = 0
		if err := b.AppendText(v); err != nil {
			return err
		}
	}
	appendNulls(b, nulls)
	return nil
}

// appendNulls appends n nulls to b, at once where b can.
func appendNulls(b Builder, n int) {
	if n == 0 {
		return
	}
	if na, ok := b.(nullsAppender); ok {
		na.appendNulls(n)
		return
	}
	for range n {
		b.AppendNull()
	}
}

// grown is s with n zero values appended.
func grown[T any](s []T, n int) []T {
	l := len(s)
	s = slices.Grow(s, n)[:l+n]
	clear(s[l:])
	return s
}

// nullsTo appends n nulls to a builder's values and mask, unless it only
// checks.
func nullsTo[T any](check bool, vals *[]T, m *nullMask, n int) {
	if !check {
		*vals = grown(*vals, n)
		m.addNulls(n)
	}
}

func (b *IntBuilder) appendNulls(n int) {
	if b.narrow {
		nullsTo(b.check, &b.v32, &b.Mask, n)
	} else {
		nullsTo(b.check, &b.Vals, &b.Mask, n)
	}
}

func (b *floatBuilder) appendNulls(n int) { nullsTo(b.check, &b.vals, &b.mask, n) }

func (b *boolBuilder) appendNulls(n int) {
	if !b.check {
		b.vals.pushN(false, n)
		b.mask.addNulls(n)
	}
}

func (b *dateBuilder) appendNulls(n int) {
	if b.narrow {
		nullsTo(b.check, &b.d16, &b.mask, n)
	} else {
		nullsTo(b.check, &b.vals, &b.mask, n)
	}
}
