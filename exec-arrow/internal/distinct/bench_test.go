package distinct

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"
)

// sessionValues is n 16-byte hex values drawn from sessions values, their
// groups (53 weeks) and their hashes: the shape of the web benchmark's
// sessions question.
func sessionValues(n int, sessions uint64) ([]string, []uint32, []uint64) {
	r := rand.New(rand.NewPCG(1, 2))
	vs := make([]string, n)
	gs := make([]uint32, n)
	hs := make([]uint64, n)
	for i := range vs {
		vs[i] = fmt.Sprintf("%016x", r.Uint64N(sessions)*0x9e3779b97f4a7c15)
		gs[i] = uint32(r.IntN(53))
		hs[i] = HashString(vs[i])
	}
	return vs, gs, hs
}

// BenchmarkSessions adds 1 M (week, session) pairs to each of two sets,
// a pair at a time or 128 at a time, absorbs one into the other and
// counts.
func BenchmarkSessions(b *testing.B) {
	const n = 2_000_000
	vs, gs, hs := sessionValues(n, n*4/5)
	b.Run("one", func(b *testing.B) {
		benchSessions(b, gs, hs, vs, func(s *Set, lo, hi int) {
			for i := lo; i < hi; i++ {
				s.AddString(gs[i], hs[i], vs[i])
			}
		})
	})
	b.Run("batched", func(b *testing.B) {
		benchSessions(b, gs, hs, vs, func(s *Set, lo, hi int) {
			for i := lo; i < hi; i += 128 {
				j := min(i+128, hi)
				s.AddStrings(gs[i:j], hs[i:j], vs[i:j])
			}
		})
	})
}

// BenchmarkSessionsMerge times only what follows the adds: two workers'
// sets of 2 M pairs each (the same sessions in both, in other weeks too)
// absorbed one into the other, and counted.
func BenchmarkSessionsMerge(b *testing.B) {
	const n = 4_000_000
	vs, gs, hs := sessionValues(n, n*4/5)
	remap := sameGroups(53)
	for b.Loop() {
		b.StopTimer()
		a, c := New(b.TempDir()), New(b.TempDir())
		for i := 0; i < n; i += 128 {
			j := min(i+128, n)
			s := a
			if i%256 != 0 {
				s = c
			}
			s.AddStrings(gs[i:j], hs[i:j], vs[i:j])
		}
		b.StartTimer()
		a.Absorb(c, remap)
		if _, err := a.Counts(53, func(int64) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

func benchSessions(b *testing.B, gs []uint32, hs []uint64, vs []string, add func(s *Set, lo, hi int)) {
	n := len(vs)
	for range b.N {
		a, c := New(b.TempDir()), New(b.TempDir())
		add(a, 0, n/2)
		add(c, n/2, n)
		remap := sameGroups(53)
		b.ReportMetric(float64(a.Bytes()+c.Bytes())/float64(n), "B/pair")
		a.Absorb(c, remap)
		if _, err := a.Counts(53, func(int64) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSessionsSpilled is the sessions question past the working set:
// two workers' sets of 2 M pairs each, few of them alike (the shape of
// 100 M web events, where a session's rows fall in different weeks),
// each set spilling whenever it holds 400 k pairs, then absorbed and
// counted from the spills.
func BenchmarkSessionsSpilled(b *testing.B) {
	const n = 4_000_000
	vs, gs, hs := sessionValues(n, n*2/5)
	remap := sameGroups(53)
	for b.Loop() {
		sets := []*Set{New(b.TempDir()), New(b.TempDir())}
		for i := 0; i < n; i += 128 {
			j := min(i+128, n)
			s := sets[(i/128)%2]
			s.AddStrings(gs[i:j], hs[i:j], vs[i:j])
			if s.Len() >= 400_000 {
				if _, err := s.Spill(); err != nil {
					b.Fatal(err)
				}
			}
		}
		sets[0].Absorb(sets[1], remap)
		if _, err := sets[0].Counts(53, func(int64) error { return nil }); err != nil {
			b.Fatal(err)
		}
		sets[0].Close()
	}
}

// BenchmarkCountBytes counts one partition's records as a partition of
// the 100 M sessions question holds them when it is counted: 800 k
// records of 16-byte values in 53 groups, nearly all distinct.
func BenchmarkCountBytes(b *testing.B) {
	const n = 800_000
	r := rand.New(rand.NewPCG(5, 6))
	var buf []byte
	for range n {
		v := fmt.Sprintf("%016x", r.Uint64N(1<<40))
		buf = binary.LittleEndian.AppendUint32(buf, uint32(r.IntN(53)))
		buf = binary.LittleEndian.AppendUint32(buf, uint32(HashString(v)))
		buf = binary.LittleEndian.AppendUint32(buf, uint32(len(v)))
		buf = append(buf, v...)
	}
	table := make([]uint64, tableSize(n))
	out := make([]int64, 53)
	for b.Loop() {
		clear(table)
		countBytes(buf, table, out)
	}
}

// sameGroups is the remap that keeps each of n groups.
func sameGroups(n int) []int32 {
	remap := make([]int32, n)
	for g := range remap {
		remap[g] = int32(g)
	}
	return remap
}
