package column

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
)

// TestAppendColumnValidity: batch columns appended whole keep each row's
// validity and value, whether the first nulls come in the first batch, a
// later one or none, as the value-by-value appends do.
func TestAppendColumnValidity(t *testing.T) {
	batch := func(vals []int64, nulls ...int) *Column {
		c := &Column{Type: domain.TypeInteger, N: len(vals), Ints: vals}
		if len(nulls) > 0 {
			c.Valid = make([]byte, (len(vals)+7)/8)
			for i := range vals {
				c.Valid[i>>3] |= 1 << (i & 7)
			}
			for _, r := range nulls {
				c.Valid[r>>3] &^= 1 << (r & 7)
				c.Ints[r] = 0
			}
		}
		return c
	}
	var whole, one IntBuilder
	whole.Typ, one.Typ = domain.TypeInteger, domain.TypeInteger
	batches := []*Column{batch([]int64{1, 2, 3}), batch([]int64{4, 5, 6, 7, 8, 9, 10, 11, 12}, 1, 8), batch([]int64{13, 14}), batch([]int64{15, 16}, 0)}
	for _, c := range batches {
		_, err := whole.AppendColumn(c)
		require.NoError(t, err)
		for r := range int32(c.N) {
			if c.IsValid(r) {
				require.NoError(t, one.AppendInt(c.Ints[r]))
			} else {
				one.AppendNull()
			}
		}
	}
	w, o := whole.Finish("x"), one.Finish("x")
	require.Equal(t, o.N, w.N)
	for r := range int32(o.N) {
		assert.Equal(t, o.IsValid(r), w.IsValid(r), "row %d", r)
		assert.Equal(t, o.Cell(r), w.Cell(r), "row %d", r)
	}
	assert.Equal(t, o.Arr.NullN(), w.Arr.NullN())
	assert.Equal(t, 3, w.Arr.NullN())
}

// A builder reserved for its rows starts its validity, at the first null,
// with the room reserved: filling the rest never grows it, and the
// validity is what the rows say.
func TestReservedMaskStartsWithItsRoom(t *testing.T) {
	var b IntBuilder
	b.Typ = domain.TypeInteger
	b.Reserve(1_000)
	ints := make([]int64, 100)
	valid := make([]byte, 100/8+1)
	for i := range 100 {
		if i != 37 {
			valid[i>>3] |= 1 << (i & 7)
		}
	}
	_, err := b.AppendColumn(&Column{Type: domain.TypeInteger, N: 100, Ints: ints})
	require.NoError(t, err)
	require.Nil(t, b.Mask.valid.b, "no null yet")
	for range 9 {
		_, err := b.AppendColumn(&Column{Type: domain.TypeInteger, N: 100, Ints: ints, Valid: valid})
		require.NoError(t, err)
		require.Equal(t, 125, cap(b.Mask.valid.b), "the reserved room (a bit a value), taken once")
	}
	c := b.Finish("x")
	require.Equal(t, 1_000, c.N)
	require.Equal(t, 9, c.Arr.NullN())
	for r := range int32(1_000) {
		require.Equal(t, r < 100 || r%100 != 37, c.IsValid(r), "row %d", r)
	}
}

// TestReservedDictionaryBuildsTheSameColumn: a text builder whose
// dictionary was sized ahead (too small, exact, too large) builds the
// column the unsized one builds, its codes in first-seen order and its
// nulls kept; a hint after the first value, or in a check, changes nothing.
func TestReservedDictionaryBuildsTheSameColumn(t *testing.T) {
	vals := []string{"b", "a", "", "b", "c", "a", "", "d"}
	build := func(hint int) *Column {
		bl := NewBuilderSpec(domain.TypeText, DecimalSpec{}, false)
		if hint >= 0 {
			bl.(DictReserver).ReserveDict(hint, 4*hint)
		}
		for _, v := range vals {
			if v == "" {
				bl.AppendNull()
				continue
			}
			require.NoError(t, bl.AppendText(v))
			bl.(DictReserver).ReserveDict(1000, 1000) // too late: ignored
		}
		return bl.Finish("t")
	}
	want := build(-1)
	assert.Equal(t, []string{"b", "a", "c", "d"}, want.Dict)
	for _, hint := range []int{0, 1, 4, 1 << 16} {
		got := build(hint)
		assert.Equal(t, want.Dict, got.Dict, "hint %d", hint)
		assert.Equal(t, want.Idx8, got.Idx8, "hint %d", hint)
		assert.Equal(t, want.Valid, got.Valid, "hint %d", hint)
	}
	check := NewBuilderSpec(domain.TypeText, DecimalSpec{}, true)
	check.(DictReserver).ReserveDict(8, 8)
	require.NoError(t, check.AppendText("x"))
	assert.Nil(t, check.Finish("t"))
}

// TestAppendTextsAsOneByOne: AppendTexts builds, for every type, the
// column that AppendText and AppendNull build row by row: empty texts and
// rows keep drops are null, whether keep is nil, drops whole bytes, keeps
// whole bytes, single rows or none, whether the first null comes first,
// later or never, and whether an integer or a date too wide for the
// values so far comes inside a run.
func TestAppendTextsAsOneByOne(t *testing.T) {
	values := map[domain.ColumnType][]string{
		domain.TypeInteger:   {"1", "-7", "42", "9000", "1", "5", "-8000000000"}, // the last widens
		domain.TypeFloat:     {"1.5", "-0.25", "3"},
		domain.TypeBoolean:   {"true", "false"},
		domain.TypeDate:      {"2025-01-02", "2024-12-31", "2025-01-02", "1850-03-01"}, // the last widens
		domain.TypeTimestamp: {"2025-01-02T03:04:05Z", "2024-08-27T08:52:32Z"},
		domain.TypeText:      {"view", "purchase", "click"},
		domain.TypeDecimal:   {"1.25", "-3.50"},
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for typ, vals := range values {
		for round := range 40 {
			n := rng.IntN(70)
			texts := make([]string, n)
			for k := range texts {
				if round%4 != 0 && rng.IntN(5) == 0 {
					continue // empty: null
				}
				texts[k] = vals[rng.IntN(len(vals))]
			}
			var keep []byte
			if round%3 != 0 {
				keep = make([]byte, (n+7)/8)
				for k := range n {
					if round%3 == 1 && rng.IntN(3) > 0 || round%3 == 2 && k/8%3 != 0 {
						keep[k>>3] |= 1 << (k & 7)
					}
				}
			}
			spec := DecimalSpec{Precision: 10, Scale: 2}
			bulk, one := NewBuilderSpec(typ, spec, false), NewBuilderSpec(typ, spec, false)
			require.NoError(t, AppendTexts(bulk, texts, keep))
			for k, v := range texts {
				if v == "" || keep != nil && keep[k>>3]&(1<<(k&7)) == 0 {
					one.AppendNull()
					continue
				}
				require.NoError(t, one.AppendText(v))
			}
			got, want := bulk.Finish("c"), one.Finish("c")
			require.Equal(t, want.N, got.N, "%s round %d", typ, round)
			for r := range int32(want.N) {
				require.Equal(t, want.IsValid(r), got.IsValid(r), "%s round %d row %d", typ, round, r)
				if want.IsValid(r) {
					require.Equal(t, want.Cell(r), got.Cell(r), "%s round %d row %d", typ, round, r)
				}
			}
		}
	}
}

// TestDatesInOrderAsOneByOne: dates written in order (each repeated for
// a run of rows, which the date builder compares instead of parsing once
// its first dates repeated) build the column one-by-one appends build:
// a date that differs from the one before it in its last two bytes
// alone, or in its first eight alone, is parsed; nulls and a selection
// break the runs; a text that is no date stops the append with the error
// one-by-one appends meet, past the probe and within it; a reset builder
// probes again.
func TestDatesInOrderAsOneByOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	inOrder := func(n int, bad int) []string {
		texts := make([]string, n)
		day := domain.Date(20_000)
		for k := range texts {
			switch {
			case k == bad:
				texts[k] = "2025-13-01"
				continue
			case rng.IntN(40) == 0:
				continue // null
			case rng.IntN(25) == 0:
				day += domain.Date(1 + rng.IntN(40)) // a new day: the last bytes, or a new month, change
			case rng.IntN(200) == 0:
				day += 365 // the same day of a later year: the first eight bytes change alone
			}
			texts[k] = day.String()
		}
		return texts
	}
	b, one := NewBuilder(domain.TypeDate, false), NewBuilder(domain.TypeDate, false)
	for round := range 30 {
		n := 1 + rng.IntN(3000)
		bad := -1
		if round%5 == 4 {
			bad = rng.IntN(n) // inside the probe or past it
		}
		texts := inOrder(n, bad)
		var keep []byte
		if round%3 == 1 {
			keep = make([]byte, (n+7)/8)
			for k := range n {
				if rng.IntN(4) > 0 {
					keep[k>>3] |= 1 << (k & 7)
				}
			}
		}
		b.(Resetter).Reset()
		one = NewBuilder(domain.TypeDate, false)
		err := AppendTexts(b, texts, keep)
		var oneErr error
		for k, v := range texts {
			if v == "" || keep != nil && keep[k>>3]&(1<<(k&7)) == 0 {
				one.AppendNull()
				continue
			}
			if oneErr = one.AppendText(v); oneErr != nil {
				break
			}
		}
		if oneErr != nil {
			require.EqualError(t, err, oneErr.Error(), "round %d", round)
			continue
		}
		require.NoError(t, err, "round %d", round)
		got, want := b.Finish("c"), one.Finish("c")
		require.Equal(t, want.N, got.N, "round %d", round)
		for r := range int32(want.N) {
			require.Equal(t, want.IsValid(r), got.IsValid(r), "round %d row %d", round, r)
			if want.IsValid(r) {
				require.Equal(t, want.Cell(r), got.Cell(r), "round %d row %d", round, r)
			}
		}
	}
}

// AppendTexts returns the error of a text its builder refuses.
func TestAppendTextsRefuses(t *testing.T) {
	b := NewBuilder(domain.TypeInteger, false)
	assert.Error(t, AppendTexts(b, []string{"", "1", "x"}, nil))
}

// A column of no value finishes empty, whatever its type: an empty
// Boolean array has no values buffer at all (it used to crash New).
func TestEmptyColumnsFinish(t *testing.T) {
	for _, typ := range []domain.ColumnType{domain.TypeBoolean, domain.TypeInteger, domain.TypeFloat, domain.TypeText,
		domain.TypeDate, domain.TypeTimestamp, domain.TypeDecimal} {
		c := NewBuilderSpec(typ, DecimalSpec{Precision: 10, Scale: 2}, false).Finish("c")
		require.NotNil(t, c, "%s", typ)
		assert.Zero(t, c.N, "%s", typ)
	}
}

// A builder reset builds its next column as a new builder would, nulls
// before or after included, in the memory it already holds.
func TestResetBuildsAsNew(t *testing.T) {
	values := map[domain.ColumnType][]string{
		domain.TypeInteger:   {"1", "-7", "42"},
		domain.TypeDate:      {"2025-01-02", "1969-12-31"},
		domain.TypeTimestamp: {"2025-01-02T03:04:05Z", "1960-08-27T08:52:32Z"},
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for typ, vals := range values {
		b := NewBuilder(typ, false)
		r, ok := b.(Resetter)
		require.True(t, ok, "%s", typ)
		for round := range 30 {
			r.Reset()
			texts := make([]string, rng.IntN(70))
			for k := range texts {
				if round%2 == 0 || rng.IntN(4) > 0 {
					texts[k] = vals[rng.IntN(len(vals))]
				}
			}
			fresh := NewBuilder(typ, false)
			require.NoError(t, AppendTexts(b, texts, nil))
			require.NoError(t, AppendTexts(fresh, texts, nil))
			got, want := b.Finish("c"), fresh.Finish("c")
			require.Equal(t, want.N, got.N, "%s round %d", typ, round)
			require.Equal(t, want.Arr.NullN(), got.Arr.NullN(), "%s round %d", typ, round)
			require.Equal(t, want.Valid == nil, got.Valid == nil, "%s round %d", typ, round)
			for k := range int32(want.N) {
				require.Equal(t, want.IsValid(k), got.IsValid(k), "%s round %d row %d", typ, round, k)
				if want.IsValid(k) {
					require.Equal(t, want.Cell(k), got.Cell(k), "%s round %d row %d", typ, round, k)
				}
			}
		}
		full := make([]string, 64)
		for k := range full {
			full[k] = vals[0]
		}
		require.NoError(t, AppendTexts(b, full, nil))
		assert.Zero(t, testing.AllocsPerRun(10, func() {
			r.Reset()
			_ = AppendTexts(b, full, nil)
		}), "%s: a reset builder allocates again", typ)
	}
}

// BenchmarkAppendTexts appends a CSV block's worth of integer, date and
// boolean texts (65,536 each, one in fifty empty), every row kept, and
// with three bytes of rows in four kept.
func BenchmarkAppendTexts(b *testing.B) {
	const n = 65_536
	rng := rand.New(rand.NewPCG(1, 1))
	texts := map[domain.ColumnType][]string{domain.TypeInteger: make([]string, n), domain.TypeDate: make([]string, n), domain.TypeBoolean: make([]string, n)}
	for k := range n {
		if rng.IntN(50) == 0 {
			continue
		}
		texts[domain.TypeInteger][k] = strconv.Itoa(rng.IntN(200_000))
		texts[domain.TypeDate][k] = domain.Date(20_000 + rng.Int32N(700)).String()
		texts[domain.TypeBoolean][k] = strconv.FormatBool(rng.IntN(2) == 0)
	}
	keep := make([]byte, n/8)
	for i := range keep {
		if i%4 != 0 {
			keep[i] = 0xff
		}
	}
	// Dates in order, as a file written by day holds them: each repeats
	// for a day's rows.
	sorted := make([]string, n)
	for k := range n {
		if rng.IntN(50) != 0 {
			sorted[k] = domain.Date(20_000 + k/100).String()
		}
	}
	for _, c := range []struct {
		name  string
		typ   domain.ColumnType
		texts []string
	}{
		{"integer", domain.TypeInteger, texts[domain.TypeInteger]},
		{"date", domain.TypeDate, texts[domain.TypeDate]},
		{"date-in-order", domain.TypeDate, sorted},
		{"boolean", domain.TypeBoolean, texts[domain.TypeBoolean]},
	} {
		typ := c.typ
		for _, kept := range []bool{false, true} {
			k := keep
			if !kept {
				k = nil
			}
			b.Run(fmt.Sprintf("%s/keep=%v", c.name, kept), func(b *testing.B) {
				bl := NewBuilder(typ, false)
				for b.Loop() {
					if r, ok := bl.(Resetter); ok {
						r.Reset()
					} else {
						bl = NewBuilder(typ, false)
					}
					if err := AppendTexts(bl, c.texts, k); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
