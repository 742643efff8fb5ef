package match

import (
	"fmt"
	"testing"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
)

// col builds a column of typ from vals ("" is null).
func col(t *testing.T, typ domain.ColumnType, vals ...string) *column.Column {
	t.Helper()
	b := column.NewBuilder(typ, false)
	for _, v := range vals {
		if v == "" {
			b.AppendNull()
		} else if err := b.AppendText(v); err != nil {
			t.Fatal(err)
		}
	}
	return b.Finish("c")
}

// passes is the rows of c that p passes, as their indexes, and the
// unmatched join row (-1) last when it passes.
func passes(p *Predicate, c *column.Column) string {
	rows := make([]int32, c.N+1)
	for r := range c.N {
		rows[r] = int32(r)
	}
	rows[c.N] = -1
	out := make([]bool, len(rows))
	p.Eval(c, rows, out, &column.DictMap{})
	var got []int32
	for k, ok := range out {
		if ok {
			got = append(got, rows[k])
		}
	}
	return fmt.Sprint(got)
}

// TestEvalByType: each type's values are matched by their canonical
// rendering (a value rendered otherwise matches nothing); not_in keeps
// the others and the nulls (and an unmatched join's row), a required
// not_equals keeps no null; is_not_null passes every value.
func TestEvalByType(t *testing.T) {
	cases := []struct {
		typ    domain.ColumnType
		vals   []string
		filter []string
		eq     string // rows eq/in passes
		notIn  string // rows not_in passes
	}{
		{domain.TypeText, []string{"a", "b", "", "a", "c"}, []string{"a", "c", "zz"}, "[0 3 4]", "[1 2 -1]"},
		{domain.TypeInteger, []string{"7", "-3", "", "7", "12"}, []string{"7", "012"}, "[0 3]", "[1 2 4 -1]"},
		{domain.TypeInteger, []string{"7000000000", "1", "", "7000000000"}, []string{"7000000000"}, "[0 3]", "[1 2 -1]"},
		{domain.TypeFloat, []string{"1.5", "2", "", "1.5"}, []string{"1.5", "2.0"}, "[0 3]", "[1 2 -1]"},
		{domain.TypeDecimal, []string{"1.50", "2.25", "", "1.5"}, []string{"1.5", "2.250"}, "[0 3]", "[1 2 -1]"},
		{domain.TypeDate, []string{"2025-02-10", "2025-02-11", ""}, []string{"2025-02-10"}, "[0]", "[1 2 -1]"},
		{domain.TypeBoolean, []string{"true", "false", "", "true"}, []string{"false"}, "[1]", "[0 2 3 -1]"},
		{domain.TypeTimestamp, []string{"2025-02-10T01:02:03Z", "2025-02-10T01:02:04Z", ""}, []string{"2025-02-10T01:02:03Z"}, "[0]", "[1 2 -1]"},
	}
	for _, c := range cases {
		cl := col(t, c.typ, c.vals...)
		held := column.NewDerived(cl, nil)
		in, err := Caller(0, held, domain.FilterRef{Op: domain.OpIn, Values: c.filter})
		if err != nil {
			t.Fatal(err)
		}
		if got := passes(in, cl); got != c.eq {
			t.Errorf("%s %v in %v: rows %s, want %s", c.typ, c.vals, c.filter, got, c.eq)
		}
		notIn, err := Caller(0, held, domain.FilterRef{Op: domain.OpNotIn, Values: c.filter})
		if err != nil {
			t.Fatal(err)
		}
		if got := passes(notIn, cl); got != c.notIn {
			t.Errorf("%s %v not_in %v: rows %s, want %s", c.typ, c.vals, c.filter, got, c.notIn)
		}
		ne, err := Required(held, domain.RequiredFilter{Op: domain.NotEquals, Value: c.filter[0]})
		if err != nil {
			t.Fatal(err)
		}
		var want []int32
		for r, v := range c.vals {
			if v != "" && !matchesFirst(t, c.typ, v, c.filter[0]) {
				want = append(want, int32(r))
			}
		}
		if got := passes(ne, cl); got != fmt.Sprint(want) {
			t.Errorf("%s %v not_equals %s: rows %s, want %v", c.typ, c.vals, c.filter[0], got, want)
		}
		any, err := Required(held, domain.RequiredFilter{Op: domain.IsNotNull})
		if err != nil {
			t.Fatal(err)
		}
		want = nil
		for r, v := range c.vals {
			if v != "" {
				want = append(want, int32(r))
			}
		}
		if got := passes(any, cl); got != fmt.Sprint(want) {
			t.Errorf("%s %v is_not_null: rows %s, want %v", c.typ, c.vals, got, want)
		}
	}
}

// matchesFirst reports whether value v of typ equals filter value f by
// canonical rendering: an equals filter of f alone passes it.
func matchesFirst(t *testing.T, typ domain.ColumnType, v, f string) bool {
	t.Helper()
	c := col(t, typ, v)
	p, err := Required(column.NewDerived(c, nil), domain.RequiredFilter{Op: domain.Equals, Value: f})
	if err != nil {
		t.Fatal(err)
	}
	return passes(p, c) == "[0]"
}

// TestCachedTextOutcomes: a text column every batch shares has its
// outcome per dictionary entry computed once, and a streamed batch's own
// column (another dictionary) is tested by its values, not by those
// outcomes.
func TestCachedTextOutcomes(t *testing.T) {
	cached := col(t, domain.TypeText, "view", "purchase", "click", "purchase")
	p, err := Required(column.NewDerived(cached, nil), domain.RequiredFilter{Op: domain.Equals, Value: "purchase"})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(p.DictOut) != fmt.Sprint([]bool{false, true, false}) {
		t.Fatalf("outcomes %v over dictionary %v", p.DictOut, cached.Dict)
	}
	if got := passes(p, cached); got != "[1 3]" {
		t.Errorf("cached rows %s, want [1 3]", got)
	}
	batch := col(t, domain.TypeText, "purchase", "view", "purchase")
	if got := passes(p, batch); got != "[0 2]" {
		t.Errorf("a batch's rows %s, want [0 2]", got)
	}
}

// TestMayPassByStatistics: a chunk is skipped only when no value of an
// equals or in filter lies between its extremes; a negated or null-keeping
// filter, or a joined column's, never skips one.
func TestMayPassByStatistics(t *testing.T) {
	text := col(t, domain.TypeText, "m", "p")
	ints := col(t, domain.TypeInteger, "10", "20")
	eq := func(c *column.Column, v string) *Predicate {
		p, err := Required(column.NewDerived(c, nil), domain.RequiredFilter{Op: domain.Equals, Value: v})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	notIn, err := Caller(0, column.NewDerived(text, nil), domain.FilterRef{Op: domain.OpNotIn, Values: []string{"a"}})
	if err != nil {
		t.Fatal(err)
	}
	joined, err := Caller(1, column.NewDerived(text, nil), domain.FilterRef{Op: domain.OpEq, Values: []string{"a"}})
	if err != nil {
		t.Fatal(err)
	}
	textStats := column.ChunkStats{Text: true, Lo: "k", Hi: "q"}
	intStats := column.ChunkStats{ILo: 10, IHi: 20}
	for _, c := range []struct {
		name string
		p    *Predicate
		st   column.ChunkStats
		want bool
	}{
		{"text inside", eq(text, "m"), textStats, true},
		{"text below", eq(text, "a"), textStats, false},
		{"text above", eq(text, "z"), textStats, false},
		{"integer at the edge", eq(ints, "20"), intStats, true},
		{"integer past it", eq(ints, "21"), intStats, false},
		{"not_in never skips", notIn, column.ChunkStats{Text: true, Lo: "a", Hi: "a"}, true},
		{"a joined column's never skips", joined, textStats, true},
	} {
		if got := c.p.MayPass(c.st); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// TestKeyIsWhatPasses: predicates keep the same rows exactly when their
// keys are equal: values in any order alike, and a negation, a null
// kept, another value, a value split in two, or another type not.
func TestKeyIsWhatPasses(t *testing.T) {
	key := func(typ domain.ColumnType, values []string, negate, keepNull bool) string {
		t.Helper()
		p, err := New(0, column.NewDerived(col(t, typ, "1"), nil), values, negate, keepNull)
		if err != nil {
			t.Fatal(err)
		}
		return p.Key()
	}
	same := [][2]string{
		{key(domain.TypeText, []string{"a", "b"}, false, false), key(domain.TypeText, []string{"b", "a"}, false, false)},
		{key(domain.TypeInteger, []string{"7", "-3"}, true, true), key(domain.TypeInteger, []string{"-3", "7", "7"}, true, true)},
		{key(domain.TypeDecimal, []string{"2.25", "1.5"}, false, false), key(domain.TypeDecimal, []string{"1.5", "2.25"}, false, false)},
	}
	for i, s := range same {
		if s[0] != s[1] {
			t.Errorf("pair %d: %q and %q keep the same rows", i, s[0], s[1])
		}
	}
	base := key(domain.TypeText, []string{"a b"}, false, false)
	for i, other := range []string{
		key(domain.TypeText, []string{"a b"}, true, false),
		key(domain.TypeText, []string{"a b"}, false, true),
		key(domain.TypeText, []string{"a", "b"}, false, false),
		key(domain.TypeText, []string{"a c"}, false, false),
		key(domain.TypeInteger, []string{"7"}, false, false),
	} {
		if other == base {
			t.Errorf("variant %d: %q keeps other rows than %q", i, other, base)
		}
	}
}
