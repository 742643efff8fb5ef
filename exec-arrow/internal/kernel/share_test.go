package kernel

import (
	"fmt"
	"testing"
)

// TestSharedCodesCountAsOne: workers that each read every batch and keep
// their share of the codes — in bitsets, in pairs, and pairs turned into
// bitsets midway — merge into the distinct counts one worker keeping
// every code counts, for two, three and seven workers (seven: shares of
// one word or none).
func TestSharedCodesCountAsOne(t *testing.T) {
	for _, sel := range []float64{0.02, 0.5, 1} {
		c := newSparseCase(uint64(sel*100)+3, 3000, 9, 20000, 1000, sel)
		pairs := map[[2]int32]bool{}
		c.want(0, len(c.batches), pairs)
		want := fmt.Sprint(countsOf(pairs, c.ng))
		for _, workers := range []int{2, 3, 7, 64} {
			for _, sparse := range []bool{false, true} {
				tp := c.plan(sparse)
				states := make([]*termState, workers)
				for w := range states {
					states[w] = newTermState(tp)
					states[w].share(tp, w, workers)
					c.run(tp, states[w], 0, len(c.batches))
				}
				identity := make([]int32, c.ng)
				for g := range identity {
					identity[g] = int32(g)
				}
				for _, s := range states[1:] {
					states[0].grow(tp, c.ng)
					states[0].merge(tp, s, identity[:len(s.n)], nil)
				}
				if got := fmt.Sprint(counts(t, states[0], c.ng)); got != want {
					t.Errorf("sel %v, %d workers, sparse %v: %s, want %s", sel, workers, sparse, got, want)
				}
			}
		}
	}
}
