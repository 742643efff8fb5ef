package column

import (
	"math/rand/v2"
	"testing"

	"sutura.dev/domain"
)

// BenchmarkDayIndex builds the day index of 20,000,000 timestamps in no
// order over two years, in segments of ChunkRows rows: what the first
// question a cache answers from such a column pays once.
func BenchmarkDayIndex(b *testing.B) {
	const n = 20_000_000
	rng := rand.New(rand.NewPCG(1, 2))
	ints := make([]int64, n)
	for i := range ints {
		ints[i] = 20_000*86_400_000_000 + rng.Int64N(730*86_400_000_000)
	}
	c := &Column{Type: domain.TypeTimestamp, N: n, Ints: ints}
	var segs []Segment
	for lo := 0; lo < n; lo += ChunkRows {
		segs = append(segs, Segment{Lo: lo, Hi: min(lo+ChunkRows, n), Group: len(segs)})
	}
	zones := NewDerived(c, nil).Zones(segs)
	b.ResetTimer()
	for b.Loop() {
		if buildDays(NewDerived(c, nil), segs, zones) == nil {
			b.Fatal("no index")
		}
	}
}
