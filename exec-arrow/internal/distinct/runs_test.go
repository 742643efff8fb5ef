package distinct

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRunsSortedRuns adds pairs with and without duplicates, across
// compactions (runs of one byte, of several, pairs already held, pairs
// repeated within a run), and checks the set against a map after every
// step that reads it.
func TestRunsSortedRuns(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 30))
	draws := []struct {
		name string
		key  func() uint64
	}{
		{"few groups, many codes", func() uint64 { return uint64(r.IntN(8))<<32 | uint64(r.IntN(1<<21)) }},
		{"many repeats", func() uint64 { return uint64(r.IntN(3))<<32 | uint64(r.IntN(500)) }},
		{"one byte varies", func() uint64 { return 5<<32 | uint64(r.IntN(200)) }},
		{"every byte varies", func() uint64 { return r.Uint64() }},
		{"one key", func() uint64 { return 1<<32 | 9 }},
	}
	for _, d := range draws {
		t.Run(d.name, func(t *testing.T) {
			ps, want := &Runs{}, map[uint64]bool{}
			for step, n := range []int{1, runMin - 1, 1, 3 * runMin, 10, 5 * runMin} {
				if step%2 == 0 {
					for range n {
						k := d.key()
						ps.Add(k)
						want[k] = true
					}
				} else {
					ks := make([]uint64, n)
					for i := range ks {
						ks[i] = d.key()
						want[ks[i]] = true
					}
					ps.AddKeys(ks)
				}
				checkRuns(t, ps, want)
			}
		})
	}
}

func checkRuns(t *testing.T, ps *Runs, want map[uint64]bool) {
	t.Helper()
	if ps.Len() != len(want) {
		t.Fatalf("len %d, want %d", ps.Len(), len(want))
	}
	var got []uint64
	for k := range ps.All() {
		got = append(got, k)
	}
	if len(got) != len(want) {
		t.Fatalf("all yields %d pairs, want %d", len(got), len(want))
	}
	for i, k := range got {
		if !want[k] {
			t.Fatalf("pair %#x was never added", k)
		}
		if i > 0 && got[i-1] >= k {
			t.Fatalf("pairs %#x then %#x: not sorted and distinct", got[i-1], k)
		}
	}
	if ps.Bytes() < 8*int64(len(want)) {
		t.Fatalf("bytes %d for %d pairs", ps.Bytes(), len(want))
	}
}

// TestRadixSort checks the sort against slices.Sort, on keys that share
// some bytes and differ in others, with odd and even numbers of passes.
func TestRadixSort(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, mask := range []uint64{0, 0xff, 0xff00ff, 0xffff_ffff_ffff_ffff, 0xff00_0000_0000_0001} {
		for _, n := range []int{1, 2, 100, 5000} {
			a := make([]uint64, n)
			for i := range a {
				a[i] = r.Uint64()&mask | 1<<40
			}
			want := slices.Sorted(slices.Values(a))
			if got := radixSort(a, make([]uint64, n), 0); !slices.Equal(got, want) {
				t.Fatalf("mask %#x, %d keys: not sorted", mask, n)
			}
		}
	}
}

// BenchmarkRunsMerge is the serial end of a distinct count over two
// workers: 150 k pairs each (240 groups × 2 M codes), the second's added
// to the first's.
func BenchmarkRunsMerge(b *testing.B) {
	keys := func(seed uint64) []uint64 {
		r := rand.New(rand.NewPCG(seed, 1))
		ks := make([]uint64, 150_000)
		for i := range ks {
			ks[i] = uint64(r.IntN(240))<<32 | uint64(r.IntN(2_000_000))
		}
		return ks
	}
	ka, kb := keys(1), keys(2)
	for b.Loop() {
		b.StopTimer()
		dst, src := &Runs{}, &Runs{}
		for _, k := range ka {
			dst.Add(k)
		}
		for _, k := range kb {
			src.Add(k)
		}
		b.StartTimer()
		dst.Grow(src.Len())
		for k := range src.All() {
			dst.Add(k)
		}
		_ = dst.Len()
	}
}

// BenchmarkRunsAdd is one worker's scan: 150 k pairs added one by one.
func BenchmarkRunsAdd(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	ks := make([]uint64, 150_000)
	for i := range ks {
		ks[i] = uint64(r.IntN(240))<<32 | uint64(r.IntN(2_000_000))
	}
	for b.Loop() {
		ps := &Runs{}
		for _, k := range ks {
			ps.Add(k)
		}
		_ = ps.Len()
	}
}

// TestRunsAbsorb takes a set's keys into another, translated: groups
// renumbered (low bits kept, so sorted by their top bits alone), codes
// renumbered too, groups merged into one (which the top-bit sort alone
// would leave out of order), and keys already in order; then adds more,
// and checks every step against a map.
func TestRunsAbsorb(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	perm := r.Perm(300)
	codes := r.Perm(5000)
	cases := []struct {
		name    string
		f       func(uint64) uint64
		keepLow bool
	}{
		{"groups renumbered", func(k uint64) uint64 { return uint64(perm[k>>32])<<32 | k&(1<<32-1) }, true},
		{"groups and codes renumbered", func(k uint64) uint64 { return uint64(perm[k>>32])<<32 | uint64(codes[k&(1<<32-1)]) }, false},
		{"groups merged", func(k uint64) uint64 { return k>>32%7<<32 | k&(1<<32-1) }, true},
		{"in order", func(k uint64) uint64 { return k + 1<<32 }, true},
	}
	for _, c := range cases {
		for _, n := range []int{0, 1, 100, 3 * runMin} {
			t.Run(fmt.Sprintf("%s, %d keys", c.name, n), func(t *testing.T) {
				dst, src, want := &Runs{}, &Runs{}, map[uint64]bool{}
				key := func() uint64 { return uint64(r.IntN(300))<<32 | uint64(r.IntN(5000)) }
				for range 2 * runMin {
					k := key()
					dst.Add(k)
					want[k] = true
				}
				for range n {
					k := key()
					src.Add(k)
					want[c.f(k)] = true
				}
				src.Add(key()) // pending, not yet compacted
				for k := range src.All() {
					want[c.f(k)] = true
				}
				dst.Absorb(src, c.f, c.keepLow)
				if src.Len() != 0 || src.Bytes() != 0 {
					t.Fatalf("src keeps %d keys in %d bytes", src.Len(), src.Bytes())
				}
				var got []uint64
				for k := range dst.All() {
					got = append(got, k)
				}
				checkSorted(t, got, want)
				k := key()
				dst.Add(k)
				want[k] = true
				checkRuns(t, dst, want)
			})
		}
	}
}

func checkSorted(t *testing.T, got []uint64, want map[uint64]bool) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d keys, want %d", len(got), len(want))
	}
	for i, k := range got {
		if !want[k] {
			t.Fatalf("key %#x was never added", k)
		}
		if i > 0 && got[i-1] >= k {
			t.Fatalf("keys %#x then %#x: not sorted and distinct", got[i-1], k)
		}
	}
}
