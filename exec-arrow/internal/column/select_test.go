package column

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// SelectCodes keeps the rows whose code passes, in order, for every
// length mod 4 and rows not starting at 0.
func TestSelectCodes(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	res := []bool{false, true, false}
	for n := range 40 {
		idx := make([]int32, n)
		var want []int32
		for i := range idx {
			idx[i] = rng.Int32N(3)
			if res[idx[i]] {
				want = append(want, int32(100+i))
			}
		}
		sel := make([]int32, n)
		if k := SelectCodes(sel, idx, 100, res); fmt.Sprint(sel[:k]) != fmt.Sprint(want) {
			t.Errorf("%d codes: selected %v, want %v", n, sel[:k], want)
		}
	}
}
