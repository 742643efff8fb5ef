package distinct

import (
	"fmt"
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
