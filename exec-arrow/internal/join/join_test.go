package join

import (
	"fmt"
	"math/rand/v2"
	"testing"

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
