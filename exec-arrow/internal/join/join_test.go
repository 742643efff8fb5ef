package join

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
)

// A dense integer join gathers the keys first (Apply given scratch
// keys): the same to-rows as row by row, for keys below, inside (with and
// without a row) and above the index, over rows of a selection that
// skips some and holds no row (-1) at places.
func TestJoinApplyGathersFirst(t *testing.T) {
	const n = 1_000
	rng := rand.New(rand.NewPCG(11, 12))
	keys := &column.Column{ID: column.ColumnIDs.Add(1), N: n, Ints: make([]int64, n)}
	for i := range keys.Ints {
		keys.Ints[i] = 90 + rng.Int64N(40) // the index holds 100..119
	}
	keys.Ints[0], keys.Ints[1], keys.Ints[2] = 100, -1<<63, 1<<63-1 // row 0 is read for no row
	dense := make([]int32, 20)                                      // dense[v-100] is row+1, 0: none
	for v := range dense {
		if v%3 != 1 {
			dense[v] = int32(v + 1)
		}
	}
	js := &Step{idx: &column.JoinIndex{Min: 100, Dense: dense}}
	var from, want []int32
	for r := range int32(n) {
		if r%4 == 3 {
			continue
		}
		w := int32(-1)
		if r%7 == 5 {
			from, want = append(from, -1), append(want, -1) // no row (an earlier join's)
			continue
		}
		from = append(from, r)
		if v := keys.Ints[r]; v >= 100 && v < 120 && dense[v-100] != 0 {
			w = dense[v-100] - 1
		}
		want = append(want, w)
	}
	for _, scratch := range [][]uint64{nil, make([]uint64, len(from))} {
		out := make([]int32, len(from))
		js.Apply(keys, from, out, nil, scratch)
		if fmt.Sprint(out) != fmt.Sprint(want) {
			t.Errorf("keys gathered first %v: to-rows %v, want %v", scratch != nil, out, want)
		}
	}
}

// joinedTables builds a key column of a joined table (n rows, a null
// every 13th, keys into 0..m) and the key column of the table it joins to
// (m rows, keys 0..m-1 shuffled), and random rows of the first (-1 at
// places: no row), as a second join of a question meets them.
func joinedTables(n, m int) (from, to *column.Derived, rows []int32) {
	rng := rand.New(rand.NewPCG(5, 6))
	fk := &column.Column{ID: column.ColumnIDs.Add(1), N: n, Ints32: make([]int32, n), Valid: make([]byte, (n+7)/8)}
	for r := range fk.Ints32 {
		fk.Ints32[r] = int32(rng.IntN(m + 1)) // m: no row
		if r%13 != 0 {
			fk.Valid[r>>3] |= 1 << (r & 7)
		}
	}
	tk := &column.Column{ID: column.ColumnIDs.Add(1), N: m, Ints32: make([]int32, m)}
	for r, k := range rng.Perm(m) {
		tk.Ints32[r] = int32(k)
	}
	rows = make([]int32, 4*n)
	for k := range rows {
		rows[k] = int32(rng.IntN(n))
		if k%17 == 0 {
			rows[k] = -1
		}
	}
	return column.NewDerived(fk, nil), column.NewDerived(tk, nil), rows
}

// A join from a joined table reads each row's to-row from the rows it
// found for the whole key column (Derived.RowsTo): the same to-rows as
// looking each row's key up, for rows with a null key, a key with no
// row, and no row at all.
func TestJoinFromJoinedTableAsRowByRow(t *testing.T) {
	from, to, rows := joinedTables(5_000, 300)
	s, err := NewStep(t.Context(), 1, 2, from, to)
	if err != nil {
		t.Fatal(err)
	}
	if s.rowTo == nil {
		t.Fatal("a join from a joined table has no rows per row of its key")
	}
	got := make([]int32, len(rows))
	s.Apply(from.Column(), rows, got, &column.DictMap{}, nil)
	byKey := *s
	byKey.rowTo = nil
	want := make([]int32, len(rows))
	byKey.Apply(from.Column(), rows, want, &column.DictMap{}, nil)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("to-rows from the rows per row differ from those by key")
	}
	fc, tc := from.Column(), to.Column()
	for k, r := range rows {
		w := int32(-1)
		if r >= 0 && fc.IsValid(r) && int(fc.Ints32[r]) < tc.N {
			for tr, v := range tc.Ints32 {
				if v == fc.Ints32[r] {
					w = int32(tr)
				}
			}
		}
		if got[k] != w {
			t.Fatalf("row %d (key row %d): to-row %d, want %d", k, r, got[k], w)
		}
	}
}

// BenchmarkJoinFromJoinedTable: a second join (orders' customers to
// their regions) over rows of a million-row table in no order, by the
// rows per row and by each row's key.
func BenchmarkJoinFromJoinedTable(b *testing.B) {
	from, to, rows := joinedTables(1_000_000, 50)
	s, err := NewStep(b.Context(), 1, 2, from, to)
	if err != nil {
		b.Fatal(err)
	}
	byKey := *s
	byKey.rowTo = nil
	out := make([]int32, column.ChunkRows)
	for _, c := range []struct {
		name string
		s    *Step
	}{{"rows per row", s}, {"by key", &byKey}} {
		b.Run(c.name, func(b *testing.B) {
			m := &column.DictMap{}
			for i := 0; b.Loop(); i++ {
				lo := (i * column.ChunkRows) % (len(rows) - column.ChunkRows)
				c.s.Apply(from.Column(), rows[lo:lo+column.ChunkRows], out, m, nil)
			}
		})
	}
}

// Two joins through a table nothing else reads compose into one lookup a
// row (Compose): the same final rows as the two applied in turn, for
// base keys below, inside (with and without a row) and above the first
// index, a null base key, and an intermediate row whose key is null or
// has no row. The composed index is built once per pair of keys.
func TestComposeAsTwoJoins(t *testing.T) {
	mid, last, _ := joinedTables(2_000, 40) // the intermediate table's key to the last, and the last's key
	midKey := &column.Column{ID: column.ColumnIDs.Add(1), Type: domain.TypeInteger, N: mid.Column().N, Ints: make([]int64, mid.Column().N)}
	for r := range midKey.Ints {
		midKey.Ints[r] = int64(1000 + 3*r) // dense enough: one key in three
	}
	viaKey := column.NewDerived(midKey, nil)
	rng := rand.New(rand.NewPCG(9, 10))
	const n = 5_000
	base := &column.Column{ID: column.ColumnIDs.Add(1), Type: domain.TypeInteger, N: n, Ints: make([]int64, n), Valid: make([]byte, (n+7)/8)}
	for r := range base.Ints {
		base.Ints[r] = 990 + rng.Int64N(6_020) // below, inside and above 1000..6997
		if r%29 != 0 {
			base.Valid[r>>3] |= 1 << (r & 7)
		}
	}
	baseKey := column.NewDerived(base, nil)
	first, err := NewStep(t.Context(), 0, 1, baseKey, viaKey)
	if err != nil {
		t.Fatal(err)
	}
	second, err := NewStep(t.Context(), 1, 2, mid, last)
	if err != nil {
		t.Fatal(err)
	}
	builds := 0
	composed := func(n int, build func() []int32) ([]int32, error) {
		return mid.Composed(viaKey, last, n, func() []int32 { builds++; return build() })
	}
	c, ok := Compose(first, second, composed)
	if !ok {
		t.Fatal("a dense join and a join from its table do not compose")
	}
	if c.From != 0 || c.To != 2 {
		t.Errorf("composed from %d to %d, want 0 to 2", c.From, c.To)
	}
	var from []int32
	for r := range int32(n) {
		if r%5 == 4 {
			from = append(from, -1)
		} else {
			from = append(from, r)
		}
	}
	midRows, want := make([]int32, len(from)), make([]int32, len(from))
	first.Apply(base, from, midRows, &column.DictMap{}, nil)
	second.Apply(mid.Column(), midRows, want, &column.DictMap{}, nil)
	for _, keys := range [][]uint64{nil, make([]uint64, len(from))} {
		got := make([]int32, len(from))
		c.Apply(base, from, got, &column.DictMap{}, keys)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("keys gathered first %v: composed rows differ from the two joins", keys != nil)
		}
	}
	if _, ok := Compose(first, second, composed); !ok || builds != 1 {
		t.Errorf("composed again: built %d times, want once", builds)
	}
	if _, ok := Compose(second, first, composed); ok {
		t.Error("a join from a joined table composes as a first join")
	}
}
