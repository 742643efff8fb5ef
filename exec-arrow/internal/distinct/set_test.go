package distinct

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCountsAreExact(t *testing.T) {
	tests := []struct {
		name  string
		spill []int // spill after these many adds
	}{
		{name: "in memory"},
		{name: "spilled once", spill: []int{5000}},
		{name: "spilled twice", spill: []int{3000, 9000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(t.TempDir())
			defer s.Close()
			want := make([]int64, 3)
			n := 0
			for rep := 0; rep < 2; rep++ { // every pair twice
				for g := 0; g < 3; g++ {
					for v := 0; v < 2000*(g+1); v++ {
						if rep == 0 {
							want[g]++
						}
						k := fmt.Sprintf("v%07d", v)
						s.AddString(uint32(g), HashString(k), k)
						n++
						for _, at := range tt.spill {
							if n == at {
								freed, err := s.Spill()
								require.NoError(t, err)
								require.Positive(t, freed)
								require.Zero(t, s.Bytes())
							}
						}
					}
				}
			}
			got, err := s.Counts(3, func(int64) error { return nil })
			require.NoError(t, err)
			require.Equal(t, want, got)
		})
	}
}

// TestCollidingHashesStayDistinct: values with one hash are compared by
// their bytes, so a collision never merges them.
func TestCollidingHashesStayDistinct(t *testing.T) {
	s := New(t.TempDir())
	for _, v := range []string{"a", "b", "c", "a", "b"} {
		s.AddString(0, 42, v)
	}
	s.Add(1, 42, []byte("a"))
	_, err := s.Spill()
	require.NoError(t, err)
	s.AddString(0, 42, "d")
	s.AddString(0, 42, "a")
	got, err := s.Counts(2, func(int64) error { return nil })
	require.NoError(t, err)
	require.Equal(t, []int64{4, 1}, got)
}

func TestAbsorbRemapsGroupsAndRuns(t *testing.T) {
	dst, src := New(t.TempDir()), New(t.TempDir())
	defer dst.Close()
	for v := 0; v < 1000; v++ {
		k := fmt.Sprint(v)
		dst.AddString(0, HashString(k), k)
		src.AddString(uint32(v%2), HashString(k), k) // src 0 → dst 1, src 1 → dst 0
	}
	_, err := src.Spill()
	require.NoError(t, err)
	src.AddString(0, HashString("new"), "new")
	dst.Absorb(src, []int32{1, 0})
	src.Close() // the runs moved with their file
	require.Zero(t, src.Bytes())
	got, err := dst.Counts(2, func(int64) error { return nil })
	require.NoError(t, err)
	require.Equal(t, []int64{1000, 501}, got)
}

func TestCountsRefusedWhenAccountRefuses(t *testing.T) {
	s := New(t.TempDir())
	defer s.Close()
	s.AddString(0, HashString("x"), "x")
	_, err := s.Spill()
	require.NoError(t, err)
	_, err = s.Counts(1, func(n int64) error {
		if n > 0 {
			return fmt.Errorf("no room")
		}
		return nil
	})
	require.ErrorContains(t, err, "no room")
}

// TestMixedLengthsAgainstAMap: values of every length a record encodes
// (empty, short, 0xff bytes and more, longer than a block), enough pairs
// for many blocks and table doublings, some pairs added twice, in two
// sets of which one spills, absorbed into the other with its groups
// remapped: the counts equal a map's.
func TestMixedLengthsAgainstAMap(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	value := func() string {
		switch x := r.IntN(1000); {
		case x == 0:
			return strings.Repeat(string(rune('a'+r.IntN(3))), blockSize+r.IntN(100))
		case x < 20:
			return fmt.Sprint(r.IntN(50), strings.Repeat("x", 0xfe+r.IntN(4)))
		case x < 40:
			return ""
		default:
			return fmt.Sprintf("%0*x", r.IntN(20), r.Uint64N(60_000))
		}
	}
	const ng = 7
	remap := []int32{3, 0, 1, 2, 6, 5, 4}
	want := map[[2]string]bool{}
	dst, src := New(t.TempDir()), New(t.TempDir())
	defer dst.Close()
	for i := range 150_000 {
		v, g := value(), uint32(r.IntN(ng))
		if i%2 == 0 {
			dst.AddString(g, HashString(v), v)
			want[[2]string{fmt.Sprint(g), v}] = true
		} else {
			src.AddString(g, HashString(v), v)
			want[[2]string{fmt.Sprint(remap[g]), v}] = true
		}
		if i == 90_000 {
			_, err := src.Spill()
			require.NoError(t, err)
		}
	}
	require.Greater(t, dst.parts[0].n, 1000) // many records a partition
	dst.Absorb(src, remap)
	src.Close()
	requireCounts(t, dst, want, ng)
}

// TestBytesFollowTheRecords: a set's Bytes grow with its pairs, and a
// record of a 16-byte value costs about 21 bytes plus its slot.
func TestBytesFollowTheRecords(t *testing.T) {
	s := New(t.TempDir())
	defer s.Close()
	const n = 400_000
	for i := range n {
		v := fmt.Sprintf("%016x", i)
		s.AddString(uint32(i%53), HashString(v), v)
	}
	require.Equal(t, n, s.Len())
	per := float64(s.Bytes()) / n
	require.Greater(t, per, 21.0)
	// Slots at least 3/8 full, at most a block's slack a partition.
	require.Less(t, per, 21.0+8/0.375+float64(nParts*blockSize)/n+1)
}

// TestReserveTakesPairsWithoutRehash: a partition reserved for n pairs
// holds them at the load bound without growing, and keeps what it held.
func TestReserveTakesPairsWithoutRehash(t *testing.T) {
	var p part
	for i := range 100 {
		add(&p, 1, uint32(i)*2654435761, fmt.Sprint(i))
	}
	p.reserve(10_000)
	size := len(p.slots)
	require.GreaterOrEqual(t, 3*size, 4*10_000)
	for i := range 10_000 {
		add(&p, 1, uint32(i)*2654435761, fmt.Sprint(i))
	}
	require.Equal(t, size, len(p.slots), "no rehash for the reserved pairs")
	require.Equal(t, 10_000, p.n, "the first hundred were held already")
	p.reserve(10) // never shrinks
	require.Equal(t, size, len(p.slots))
}

// TestAbsorbReservesAhead: pairs absorbed from another set come in its
// slots' order, and piled up in a table that doubled from empty as they
// came (a search walking the pile each time); the table that takes them
// is sized for them first and never doubles while they come.
func TestAbsorbReservesAhead(t *testing.T) {
	src, dst := New(t.TempDir()), New(t.TempDir())
	for i := range 200_000 {
		v := fmt.Sprintf("session-%08d", i)
		src.AddString(0, HashString(v), v)
	}
	dst.Absorb(src, []int32{0})
	for i := range dst.parts {
		require.Zero(t, dst.parts[i].doublings, "partition %d doubled while absorbing", i)
	}
	got, err := dst.Counts(1, func(int64) error { return nil })
	require.NoError(t, err)
	require.Equal(t, []int64{200_000}, got)
}

// TestCountsAskForWhatTheyHold: counting a set whose pairs were spilled
// asks, for each partition, for the bytes of the buffer its records are
// read into and of the table sized for all of them, before it reads
// them, and gives them back after. One goroutine counts, so the
// partitions come in order.
func TestCountsAskForWhatTheyHold(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	s := New(t.TempDir())
	defer s.Close()
	for i := range 200_000 {
		v := fmt.Sprintf("session-%08d", i)
		s.AddString(0, HashString(v), v)
	}
	_, err := s.Spill()
	require.NoError(t, err)
	for i := range 1_000 { // and some not yet written beside the run
		v := fmt.Sprintf("late-%08d", i)
		s.AddString(0, HashString(v), v)
	}
	part, held := 0, int64(0)
	got, err := s.Counts(1, func(b int64) error {
		if b > 0 {
			bytes, pairs := s.recordsOf(part)
			require.GreaterOrEqual(t, b, bytes+8*int64(tableSize(pairs)), "partition %d asked for less than it holds", part)
			part++
		}
		held += b
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, len(s.parts), part, "every partition asked")
	require.Zero(t, held, "every partition gave its bytes back")
	require.Equal(t, []int64{201_000}, got)
}

// TestCountsWaitForRoom: partitions counted on several goroutines each
// ask for their bytes; a refusal while another partition holds its bytes
// waits for them instead of failing, so an account that grants one
// partition at a time still gets exact counts, never two held at once.
func TestCountsWaitForRoom(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	s := New(t.TempDir())
	defer s.Close()
	for i := range 100_000 {
		v := fmt.Sprintf("v-%06d", i)
		s.AddString(uint32(i%3), HashString(v), v)
	}
	_, err := s.Spill()
	require.NoError(t, err)
	var mu sync.Mutex
	held, most, refused := 0, 0, 0
	got, err := s.Counts(3, func(n int64) error {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case n < 0:
			held--
		case held > 0:
			refused++
			return fmt.Errorf("no room")
		default:
			held++
			most = max(most, held)
		}
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, []int64{33_334, 33_333, 33_333}, got)
	require.Equal(t, 1, most, "partitions held at once")
	require.Zero(t, held, "every partition's bytes given back")
	t.Logf("%d refusals waited for room", refused)
}

// TestCountsAskOnlyForBytes: a partition that read nothing back (the run
// holds none of its pairs, its table had room) asks for no bytes, so it
// holds nothing another partition would wait for.
func TestCountsAskOnlyForBytes(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	s := New(t.TempDir())
	defer s.Close()
	s.AddString(0, HashString("one"), "one") // one partition of 64 spills a pair
	_, err := s.Spill()
	require.NoError(t, err)
	for i := range 10_000 { // and every partition holds pairs in memory
		v := fmt.Sprintf("v-%05d", i)
		s.AddString(0, HashString(v), v)
	}
	var mu sync.Mutex
	zero := 0
	got, err := s.Counts(1, func(n int64) error {
		mu.Lock()
		defer mu.Unlock()
		if n == 0 {
			zero++
		}
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, []int64{10_001}, got)
	require.Zero(t, zero, "partitions that asked for no bytes")
}

// TestAbsorbedSetsCountedInPlace: four workers' sets, overlapping, each
// with its groups numbered its own way, absorbed in turn (and one set
// absorbing another before it is absorbed itself), are counted without
// their pairs moving: the counts equal a map's, whether nothing spilled,
// the set holding them spilled after absorbing, or a set absorbed had
// spilled before; and a remap that joins two groups (moved at once)
// still counts a value once per group.
func TestAbsorbedSetsCountedInPlace(t *testing.T) {
	const ng = 9
	for _, spill := range []string{"none", "after", "before"} {
		t.Run(spill, func(t *testing.T) {
			r := rand.New(rand.NewPCG(5, 6))
			want := map[string]bool{}
			sets := make([]*Set, 4)
			remaps := make([][]int32, 4)
			for w := range sets {
				sets[w] = New(t.TempDir())
				remaps[w] = make([]int32, ng)
				for g, x := range r.Perm(ng) {
					remaps[w][g] = int32(x)
				}
				for i := range 30_000 {
					v := fmt.Sprintf("s%05d", r.IntN(40_000))
					g := uint32(r.IntN(ng))
					sets[w].AddString(g, HashString(v), v)
					want[fmt.Sprint(remaps[w][g], ":", v)] = true
					if spill == "before" && w == 2 && i == 20_000 {
						_, err := sets[w].Spill()
						require.NoError(t, err)
					}
				}
			}
			// Set 3 absorbs set 2 first, its groups becoming set 3's
			// (the composition gives them their final group).
			inv3 := make([]int32, ng)
			for g, x := range remaps[3] {
				inv3[x] = int32(g)
			}
			via3 := make([]int32, ng)
			for g, x := range remaps[2] {
				via3[g] = inv3[x]
			}
			sets[3].Absorb(sets[2], via3)
			dst := sets[0]
			defer dst.Close()
			// The final groups are set 0's: set 0's remap is where its own
			// groups land, so the others' are given relative to it.
			inv0 := make([]int32, ng)
			for g, x := range remaps[0] {
				inv0[x] = int32(g)
			}
			for _, w := range []int{1, 3} {
				m := make([]int32, ng)
				for g, x := range remaps[w] {
					m[g] = inv0[x]
				}
				before := sets[w].Bytes()
				dst.Absorb(sets[w], m)
				require.Zero(t, sets[w].Len(), "set %d is left empty", w)
				require.Less(t, sets[w].Bytes(), before)
				sets[w].Close()
			}
			if spill == "none" {
				require.Len(t, dst.pending, 3, "three sets' pairs were kept where they were")
			}
			if spill == "after" {
				_, err := dst.Spill()
				require.NoError(t, err)
				require.Zero(t, dst.Len())
			}
			wantCounts := make([]int64, ng)
			for k := range want {
				var g int
				_, err := fmt.Sscanf(k, "%d:", &g)
				require.NoError(t, err)
				wantCounts[inv0[g]]++
			}
			got, err := dst.Counts(ng, func(int64) error { return nil })
			require.NoError(t, err)
			require.Equal(t, wantCounts, got)
			require.Zero(t, dst.Len(), "counting empties the set")
		})
	}
	t.Run("joined groups", func(t *testing.T) {
		dst, src := New(t.TempDir()), New(t.TempDir())
		defer dst.Close()
		for _, v := range []string{"a", "b"} {
			src.AddString(0, HashString(v), v)
			src.AddString(1, HashString(v), v)
		}
		src.AddString(1, HashString("c"), "c")
		dst.AddString(0, HashString("a"), "a")
		dst.Absorb(src, []int32{0, 0}) // both of src's groups become group 0
		require.Empty(t, dst.pending, "moved at once")
		got, err := dst.Counts(1, func(int64) error { return nil })
		require.NoError(t, err)
		require.Equal(t, []int64{3}, got)
	})
}
