package distinct

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// requireCounts requires s's counts of ng groups to be those of the
// pairs (group, value) in want.
func requireCounts(t *testing.T, s *Set, want map[[2]string]bool, ng int) {
	t.Helper()
	out := make([]int64, ng)
	for k := range want {
		var g int
		_, err := fmt.Sscan(k[0], &g)
		require.NoError(t, err)
		out[g]++
	}
	got, err := s.Counts(ng, func(int64) error { return nil })
	require.NoError(t, err)
	require.Equal(t, out, got)
}

// TestPairsWrittenAsTheyCome: a spill that finds few of the pairs given
// alike has the set write every later pair as it comes, through its
// partitions' buffers, into none of its tables; the counts still equal a
// map's, with values given again in their group and in others, values of
// every length a record encodes, further spills, and some given in
// several calls of each kind.
func TestPairsWrittenAsTheyCome(t *testing.T) {
	const ng = 7
	s := New(t.TempDir())
	defer s.Close()
	want := map[[2]string]bool{}
	give := func(g int, v string, how int) {
		want[[2]string{fmt.Sprint(g), v}] = true
		switch how % 3 {
		case 0:
			s.AddString(uint32(g), HashString(v), v)
		case 1:
			s.Add(uint32(g), Hash([]byte(v)), []byte(v))
		default:
			s.AddStrings([]uint32{uint32(g)}, []uint64{HashString(v)}, []string{v})
		}
	}
	for i := range 20_000 { // all distinct
		give(i%ng, fmt.Sprintf("first-%06d", i), i)
	}
	require.False(t, s.writing, "no spill yet")
	_, err := s.Spill()
	require.NoError(t, err)
	require.True(t, s.writing, "few alike: written as they come")

	r := rand.New(rand.NewPCG(7, 8))
	for i := range 200_000 {
		var v string
		switch r.IntN(5) {
		case 0: // given before the spill, in any group
			v = fmt.Sprintf("first-%06d", r.IntN(20_000))
		case 1: // long
			v = strings.Repeat("x", 250+r.IntN(10)) + fmt.Sprint(r.IntN(50))
		default:
			v = fmt.Sprintf("late-%06d", r.IntN(120_000))
		}
		give(r.IntN(ng), v, i)
		if i == 150_000 {
			freed, err := s.Spill() // writes the buffers out
			require.NoError(t, err)
			require.Positive(t, freed)
		}
	}
	for i := 1; i < nParts; i++ {
		require.Zero(t, s.parts[i].n, "partition %d: a pair went to its table", i)
	}
	require.Positive(t, s.parts[0].n, "partition 0 still looks its pairs up")
	wrote := 0
	for i := range nParts {
		wrote += len(s.runs[s.direct].ext[i])
	}
	require.Positive(t, wrote, "extents written through the buffers")
	requireCounts(t, s, want, ng)
}

// TestManyAlikeStayLookedUp: a spill that finds many of the pairs given
// alike keeps the set looking each pair up.
func TestManyAlikeStayLookedUp(t *testing.T) {
	s := New(t.TempDir())
	defer s.Close()
	for rep := range 4 {
		for i := range 10_000 {
			v := fmt.Sprintf("v-%05d", i)
			s.AddString(uint32(rep%2), HashString(v), v)
		}
	}
	_, err := s.Spill()
	require.NoError(t, err)
	require.False(t, s.writing)
	s.AddString(0, HashString("v-00001"), "v-00001")
	require.Equal(t, 1, s.Len())
	got, err := s.Counts(2, func(int64) error { return nil })
	require.NoError(t, err)
	require.Equal(t, []int64{10_000, 10_000}, got)
}

// TestAbsorbSetsWrittenAsTheyCome: a set writing its pairs as they come
// absorbed into one that looks them up, and then one that looks them up
// (with pairs held in memory) absorbed into it, each with its groups
// renumbered: the counts equal a map's.
func TestAbsorbSetsWrittenAsTheyCome(t *testing.T) {
	const ng = 4
	remap := []int32{3, 2, 1, 0}
	want := map[[2]string]bool{}
	fill := func(s *Set, spillAt, n, seed int, remap []int32) {
		r := rand.New(rand.NewPCG(uint64(seed), 1))
		for i := range n {
			g := r.IntN(ng)
			v := fmt.Sprintf("s-%06d", r.IntN(3*n))
			dg := g
			if remap != nil {
				dg = int(remap[g])
			}
			want[[2]string{fmt.Sprint(dg), v}] = true
			s.AddString(uint32(g), HashString(v), v)
			if i == spillAt {
				_, err := s.Spill()
				require.NoError(t, err)
			}
		}
	}
	dst, direct, held := New(t.TempDir()), New(t.TempDir()), New(t.TempDir())
	defer dst.Close()
	fill(direct, 5_000, 60_000, 1, remap)
	require.True(t, direct.writing)
	fill(dst, -1, 30_000, 2, nil)
	dst.Absorb(direct, remap)
	direct.Close()
	require.Zero(t, direct.Bytes())
	fill(held, -1, 30_000, 3, remap)
	dst.Absorb(held, remap)
	requireCounts(t, dst, want, ng)
}

// TestAFailedWriteFailsTheCount: pairs written as they come that could
// not be written make Counts fail rather than count without them.
func TestAFailedWriteFailsTheCount(t *testing.T) {
	s := New(t.TempDir())
	defer s.Close()
	for i := range 1_000 {
		v := fmt.Sprint(i)
		s.AddString(0, HashString(v), v)
	}
	_, err := s.Spill()
	require.NoError(t, err)
	require.True(t, s.writing)
	require.NoError(t, s.file.Close()) // every later write fails
	// 20 MB: every partition writes.
	for i := range 400_000 {
		v := fmt.Sprintf("late-%06d-%s", i, strings.Repeat("x", 30))
		s.AddString(0, HashString(v), v)
	}
	require.Error(t, s.err, "a write failed as the pairs came")
	require.LessOrEqual(t, s.Bytes(), int64(nParts*outSize)+s.parts[0].bytes(), "the buffers stopped growing")
	_, err = s.Counts(1, func(int64) error { return nil })
	require.ErrorContains(t, err, "distinct set spill")
	s.file = nil // closed above
}

// TestWritingStartsAndStopsByJudgement: a set given judgeEvery pairs,
// most of them new, starts writing them as they come without a spill;
// given pairs alike after that, it looks them up again once partition 0
// has met sentinelEvery of them; the counts equal a map's throughout.
func TestWritingStartsAndStopsByJudgement(t *testing.T) {
	const ng = 3
	s := New(t.TempDir())
	defer s.Close()
	want := map[[2]string]bool{}
	give := func(g int, v string) {
		want[[2]string{fmt.Sprint(g), v}] = true
		s.AddStrings([]uint32{uint32(g)}, []uint64{HashString(v)}, []string{v})
	}
	for i := range judgeEvery - 1 {
		give(i%ng, fmt.Sprintf("a-%07d", i))
	}
	require.False(t, s.writing, "judged before judgeEvery pairs")
	give(0, "last")
	require.True(t, s.writing, "most were new")
	require.Len(t, s.runs, 1, "only the run it writes to: nothing spilled")
	// Now only pairs met before: partition 0 finds them all alike.
	r := rand.New(rand.NewPCG(9, 9))
	for i := 0; s.writing; i++ {
		require.Less(t, i, 4*judgeEvery, "still writing pairs that are all alike")
		k := r.IntN(judgeEvery - 1)
		give(k%ng, fmt.Sprintf("a-%07d", k))
	}
	held := s.Len()
	for i := range 1000 { // looked up again: the tables take new pairs
		give(i%ng, fmt.Sprintf("b-%07d", i))
	}
	require.Equal(t, held+1000, s.Len(), "new pairs went to the tables")
	requireCounts(t, s, want, ng)
}
