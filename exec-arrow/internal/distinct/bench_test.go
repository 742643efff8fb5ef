package distinct

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// sessionValues is n 16-byte hex values (about 0.8 n distinct) and their
// groups (53 weeks), the shape of the web benchmark's sessions question.
func sessionValues(n int) ([]string, []uint32) {
	r := rand.New(rand.NewPCG(1, 2))
	vs := make([]string, n)
	gs := make([]uint32, n)
	for i := range vs {
		vs[i] = fmt.Sprintf("%016x", r.Uint64N(uint64(n)*4/5)*0x9e3779b97f4a7c15)
		gs[i] = uint32(r.IntN(53))
	}
	return vs, gs
}

// BenchmarkSessions adds 2 M (week, session) pairs to each of two sets,
// absorbs one into the other and counts.
func BenchmarkSessions(b *testing.B) {
	const n = 2_000_000
	vs, gs := sessionValues(n)
	b.ResetTimer()
	for range b.N {
		a, c := New(b.TempDir()), New(b.TempDir())
		for i := 0; i < n/2; i++ {
			a.AddString(gs[i], HashString(vs[i]), vs[i])
		}
		for i := n / 2; i < n; i++ {
			c.AddString(gs[i], HashString(vs[i]), vs[i])
		}
		remap := make([]int32, 53)
		for g := range remap {
			remap[g] = int32(g)
		}
		b.ReportMetric(float64(a.Bytes()+c.Bytes())/float64(n), "B/pair")
		a.Absorb(c, remap)
		if _, err := a.Counts(53, func(int64) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}
