package kernel

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"sutura.dev/exec-arrow/internal/column"
)

// An integer sum over a column with nulls gathers its values a block at a
// time: the same sums and non-null counts as row by row, over selections
// shorter than, as long as and longer than a block, skipping rows; a
// column of nulls with no values buffer sums nothing.
func TestSumGathersInBlocks(t *testing.T) {
	const n, ng = 2_000, 5
	rng := rand.New(rand.NewPCG(13, 14))
	c := &column.Column{ID: column.ColumnIDs.Add(1), N: n, Ints: make([]int64, n), Valid: make([]byte, n/8)}
	for r := range n {
		c.Ints[r] = rng.Int64N(1000) - 300
		if r%3 != 0 {
			c.Valid[r/8] |= 1 << (r % 8)
		}
	}
	tp := &TermPlan{Op: OpSum, Col: c}
	empty := &column.Column{N: n, Valid: make([]byte, n/8)} // every row null, no values
	s := newTermState(tp)
	s.grow(tp, 1)
	s.update(tp, empty, []int32{0, 5, n - 1}, []int32{0, 0, 0}, nil)
	if s.i[0] != 0 || s.n[0] != 0 {
		t.Errorf("a column of nulls with no values summed to %d over %d values", s.i[0], s.n[0])
	}
	for _, size := range []int{0, 7, 256, 257, 700} {
		var rows, gids []int32
		want, wantN := make([]int64, ng), make([]int64, ng)
		for r := range int32(n) {
			if len(rows) == size {
				break
			}
			if r%5 == 1 {
				continue
			}
			g := rng.Int32N(ng)
			rows, gids = append(rows, r), append(gids, g)
			if c.IsValid(r) {
				want[g] += c.Ints[r]
				wantN[g]++
			}
		}
		s := newTermState(tp)
		s.grow(tp, ng)
		s.update(tp, c, rows, gids, nil)
		if fmt.Sprint(s.i, s.n) != fmt.Sprint(want, wantN) {
			t.Errorf("%d rows: sums and counts %v %v, want %v %v", size, s.i, s.n, want, wantN)
		}
	}
}
