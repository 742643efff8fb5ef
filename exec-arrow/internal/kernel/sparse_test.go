package kernel

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"sutura.dev/exec-arrow/internal/column"
)

// sparseCase is a cached column's codes over card values (0: null) and
// the batches of rows (with their groups) a worker meets.
type sparseCase struct {
	card, ng int
	codes    []int32
	batches  [][2][]int32 // rows, gids
}

// newSparseCase draws n rows of codes, a share sel of them selected in
// batches of batch rows, over groups that appear as the batches come.
func newSparseCase(seed uint64, card, ng, n, batch int, sel float64) *sparseCase {
	rng := rand.New(rand.NewPCG(seed, 7))
	c := &sparseCase{card: card, ng: ng, codes: make([]int32, n)}
	for r := range c.codes {
		if rng.IntN(20) != 0 {
			c.codes[r] = int32(1 + rng.IntN(card))
		}
	}
	for lo := 0; lo < n; lo += batch {
		var rows, gids []int32
		for r := lo; r < min(lo+batch, n); r++ {
			if rng.Float64() < sel {
				// groups met so far grow with the batches
				rows, gids = append(rows, int32(r)), append(gids, int32(rng.IntN(1+min(ng-1, lo*ng/n+1))))
			}
		}
		c.batches = append(c.batches, [2][]int32{rows, gids})
	}
	return c
}

func (c *sparseCase) plan(sparse bool) *TermPlan {
	return &TermPlan{Op: OpDistinct, Col: &column.Column{N: len(c.codes)}, Codes: &column.CodeSet{Codes: c.codes},
		words: (c.card + 1 + 63) / 64, sparse: sparse}
}

// run feeds batches [from, to) into s, growing its groups as they appear.
func (c *sparseCase) run(tp *TermPlan, s *termState, from, to int) {
	for _, b := range c.batches[from:to] {
		ng := len(s.n)
		for _, g := range b[1] {
			ng = max(ng, int(g)+1)
		}
		s.grow(tp, ng)
		s.updateDistinct(tp, nil, b[0], b[1])
	}
}

// want is the count per group of batches [from, to), mapped by remap.
func (c *sparseCase) want(from, to int, into map[[2]int32]bool) {
	for _, b := range c.batches[from:to] {
		for k, r := range b[0] {
			if code := c.codes[r]; code > 0 {
				into[[2]int32{b[1][k], code}] = true
			}
		}
	}
}

func countsOf(pairs map[[2]int32]bool, ng int) []int64 {
	out := make([]int64, ng)
	for p := range pairs {
		out[p[0]]++
	}
	return out
}

func counts(t *testing.T, s *termState, ng int) []int64 {
	t.Helper()
	got, err := s.DistinctCounts(ng, nil)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// keepSet makes a state's pairs stay a set under DistinctDenseShare 0:
// the projection of densify never passes the bitsets.
func keepSet(s *termState) { s.spanned = 1 << 60 }

// TestDistinctSparseForms: a cached column's distinct count is the same
// from bitsets, from a set that stays a set, and from a set that turns
// into bitsets mid-stream.
func TestDistinctSparseForms(t *testing.T) {
	defer func(v int64) { DistinctDenseShare = v }(DistinctDenseShare)
	for _, sel := range []float64{0.02, 0.5, 1} {
		c := newSparseCase(uint64(sel*100), 3000, 9, 20000, 1000, sel)
		pairs := map[[2]int32]bool{}
		c.want(0, len(c.batches), pairs)
		want := fmt.Sprint(countsOf(pairs, c.ng))

		bits := newTermState(c.plan(false))
		c.run(c.plan(false), bits, 0, len(c.batches))
		if bits.set != nil || bits.bits == nil {
			t.Fatalf("sel %v: a plan that is not sparse starts in bitsets", sel)
		}

		DistinctDenseShare = 0
		tp := c.plan(true)
		set := newTermState(tp)
		keepSet(set)
		c.run(tp, set, 0, len(c.batches))
		if set.set == nil || set.bits != nil {
			t.Fatalf("sel %v: pairs left their set", sel)
		}

		sw := newTermState(tp)
		keepSet(sw)
		half := len(c.batches) / 2
		c.run(tp, sw, 0, half)
		if sw.set == nil {
			t.Fatalf("sel %v: pairs left their set", sel)
		}
		DistinctDenseShare = 1 << 40 // the next batch passes any share
		c.run(tp, sw, half, len(c.batches))
		if sw.set != nil || len(sw.bits) != c.ng*tp.words {
			t.Fatalf("sel %v: the set did not become bitsets of every group", sel)
		}
		for name, s := range map[string]*termState{"bits": bits, "set": set, "switched": sw} {
			if got := fmt.Sprint(counts(t, s, c.ng)); got != want {
				t.Fatalf("sel %v: %s: got %v, want %v", sel, name, got, want)
			}
		}
	}
}

// TestDistinctDensify: the default rule turns a term that meets a new
// pair in most rows into bitsets after its first batch (by projection),
// and one whose set passes an eighth of the bitsets (by share), and
// keeps a sparse one in its set.
func TestDistinctDensify(t *testing.T) {
	dense := newSparseCase(9, 200_000, 9, 20000, 1000, 1)
	tp := dense.plan(true)
	s := newTermState(tp)
	dense.run(tp, s, 0, 1)
	if s.set != nil || s.bits == nil {
		t.Fatalf("a dense term kept a set of %d pairs after its first batch", s.set.Len())
	}
	s = newTermState(tp)
	keepSet(s) // no projection: the share alone
	dense.run(tp, s, 0, len(dense.batches))
	if s.set != nil {
		t.Fatalf("a set of %d bytes stayed a set beside bitsets of %d", s.set.Bytes(), len(s.n)*tp.words*8)
	}
	sparse := newSparseCase(9, 200_000, 9, 20000, 1000, 0.02)
	s = newTermState(tp)
	sparse.run(tp, s, 0, len(sparse.batches))
	if s.set == nil || s.bits != nil {
		t.Fatal("a sparse term made bitsets")
	}
}

// TestDistinctSparseMerge: workers' states merge to the same counts in
// every pairing of forms (set into set, set into bitsets, bitsets into a
// set, bitsets into bitsets), through a remap of groups.
func TestDistinctSparseMerge(t *testing.T) {
	defer func(v int64) { DistinctDenseShare = v }(DistinctDenseShare)
	DistinctDenseShare = 0
	c := newSparseCase(3, 5000, 7, 16000, 1000, 0.1)
	half := len(c.batches) / 2
	for _, forms := range [][2]bool{{true, true}, {true, false}, {false, true}, {false, false}} { // dst, src: sparse
		tp := c.plan(true)
		mk := func(sparse bool, from, to int) *termState {
			s := newTermState(c.plan(sparse))
			keepSet(s)
			c.run(c.plan(sparse), s, from, to)
			s.grow(tp, c.ng)
			return s
		}
		dst, src := mk(forms[0], 0, half), mk(forms[1], half, len(c.batches))
		// src's group g is dst's ng-1-g
		remap := make([]int32, c.ng)
		for g := range remap {
			remap[g] = int32(c.ng - 1 - g)
		}
		pairs := map[[2]int32]bool{}
		c.want(0, half, pairs)
		other := map[[2]int32]bool{}
		c.want(half, len(c.batches), other)
		for p := range other {
			pairs[[2]int32{remap[p[0]], p[1]}] = true
		}
		dst.merge(tp, src, remap, nil)
		if forms[0] && !forms[1] && dst.set != nil {
			t.Fatalf("forms %v: a set took in bitsets and stayed a set", forms)
		}
		if got, want := fmt.Sprint(counts(t, dst, c.ng)), fmt.Sprint(countsOf(pairs, c.ng)); got != want {
			t.Fatalf("forms %v: got %v, want %v", forms, got, want)
		}
	}
}

// TestDistinctSparseNeverBits: a filtered question over a large domain
// (2 M codes, 240 groups: 60 MB of bitsets) keeps its few pairs in a set
// of their size, in the workers and through their merge, and never makes
// the bitsets.
func TestDistinctSparseNeverBits(t *testing.T) {
	const card, ng, n = 2_000_000, 240, 400_000
	c := newSparseCase(5, card, ng, n, 20_000, 0.03)
	tp := c.plan(true)
	planned := int64(ng) * int64(tp.words) * 8
	a, b := newTermState(tp), newTermState(tp)
	half := len(c.batches) / 2
	c.run(tp, a, 0, half)
	c.run(tp, b, half, len(c.batches))
	a.grow(tp, ng)
	b.grow(tp, ng)
	remap := make([]int32, ng)
	for g := range remap {
		remap[g] = int32(g)
	}
	a.merge(tp, b, remap, nil)
	if a.bits != nil || b.bits != nil || a.set == nil {
		t.Fatalf("sparse pairs made bitsets (%d words)", len(a.bits)+len(b.bits))
	}
	if got := a.bytes(); got > planned/16 {
		t.Fatalf("sparse state holds %d bytes; the bitsets would take %d", got, planned)
	}
	pairs := map[[2]int32]bool{}
	c.want(0, len(c.batches), pairs)
	if got, want := fmt.Sprint(counts(t, a, ng)), fmt.Sprint(countsOf(pairs, ng)); got != want {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// TestDistinctSparseEmpty: a sparse term that meets no pair (no rows, no
// groups yet, a merge of nothing) keeps its empty set.
func TestDistinctSparseEmpty(t *testing.T) {
	c := newSparseCase(2, 200_000, 3, 10, 10, 0)
	tp := c.plan(true)
	s := newTermState(tp)
	s.updateDistinct(tp, nil, nil, nil)
	s.merge(tp, newTermState(tp), nil, nil)
	if s.set == nil || s.bits != nil {
		t.Fatal("an empty sparse term made bitsets")
	}
	if got := counts(t, s, 0); len(got) != 0 {
		t.Fatalf("counts %v", got)
	}
}

// TestDistinctSparseMergeGrowsFirst: a worker's pairs merged into a
// smaller set come in the order of their table's slots, which piles them
// up in a table that doubles as they come (a merge of 300 k pairs took
// 3 s so, 7 ms grown first); the set grows once, for all of them, first.
func TestDistinctSparseMergeGrowsFirst(t *testing.T) {
	c := newSparseCase(9, 2_000_000, 240, 400_000, 20_000, 0.03)
	tp := c.plan(true)
	a, b := newTermState(tp), newTermState(tp)
	c.run(tp, a, 0, 1)
	c.run(tp, b, 1, len(c.batches))
	a.grow(tp, 240)
	b.grow(tp, 240)
	if a.set == nil || b.set == nil || a.set.Len()*8 > b.set.Len() {
		t.Fatalf("want a small set merged with a large one")
	}
	remap := make([]int32, 240)
	for g := range remap {
		remap[g] = int32(g)
	}
	grew := a.set.Pairs.Grew()
	a.merge(tp, b, remap, nil)
	if a.set == nil {
		t.Fatal("the merged pairs made bitsets")
	}
	if n := a.set.Pairs.Grew() - grew; n > 1 {
		t.Fatalf("the set grew %d times while the pairs came", n)
	}
	pairs := map[[2]int32]bool{}
	c.want(0, len(c.batches), pairs)
	if got, want := fmt.Sprint(counts(t, a, 240)), fmt.Sprint(countsOf(pairs, 240)); got != want {
		t.Fatalf("got %v, want %v", got, want)
	}
}
