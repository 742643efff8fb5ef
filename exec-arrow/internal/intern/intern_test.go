package intern

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"sutura.dev/exec-arrow/internal/distinct"
)

// TestInternCodesInFirstSeenOrder: 100,000 texts drawn from 20,000
// (the empty text among them) get one code each in the order first met,
// one by one and together (InternAll), through the table's doublings;
// each code's text and hash come back, and the Arrow array holds them in
// code order. A text past MaxBytes is refused and adds nothing.
func TestInternCodesInFirstSeenOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 7))
	pool := make([]string, 20_000)
	for i := range pool {
		pool[i] = fmt.Sprintf("id-%0*d", 1+i%6, i)
	}
	pool[0] = ""
	in := make([]string, 100_000)
	for i := range in {
		in[i] = pool[rng.IntN(len(pool))]
	}
	want := map[string]int32{}
	var order []string
	for _, s := range in {
		if _, ok := want[s]; !ok {
			want[s] = int32(len(order))
			order = append(order, s)
		}
	}
	var one, all Table
	codes, hs := make([]int32, len(in)), make([]uint64, len(in))
	require.Equal(t, len(in), all.InternAll(in, codes, hs))
	for i, s := range in {
		k, ok := one.Intern(s)
		require.True(t, ok)
		require.Equal(t, want[s], k, "text %d one by one", i)
		require.Equal(t, want[s], codes[i], "text %d together", i)
	}
	for _, tb := range []*Table{&one, &all} {
		require.Equal(t, len(order), tb.Len())
		for k, s := range order {
			require.Equal(t, s, tb.Text(k))
			require.Equal(t, distinct.HashString(s), tb.Hashes()[k])
		}
	}
	arr := all.Strings()
	defer arr.Release()
	require.Equal(t, len(order), arr.Len())

	defer func(n int) { MaxBytes = n }(MaxBytes)
	MaxBytes = 8
	var small Table
	_, ok := small.Intern("12345")
	require.True(t, ok)
	_, ok = small.Intern("6789")
	require.False(t, ok, "9 bytes pass 8")
	require.Equal(t, 1, small.Len())
	k, ok := small.Intern("12345")
	require.True(t, ok, "a text held is still taken")
	require.Equal(t, int32(0), k)
}

// BenchmarkInternAll codes 8 M values drawn from 3.2 M distinct 16-byte
// ids one by one, and together with the look-ahead.
func BenchmarkInternAll(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	vals := make([]string, 3_200_000)
	for i := range vals {
		vals[i] = fmt.Sprintf("%016x", rng.Uint64())
	}
	in := make([]string, 8_000_000)
	for i := range in {
		in[i] = vals[rng.IntN(len(vals))]
	}
	b.Run("one-by-one", func(b *testing.B) {
		for b.Loop() {
			var t Table
			for _, s := range in {
				t.Intern(s)
			}
		}
	})
	b.Run("ahead", func(b *testing.B) {
		codes, hs := make([]int32, len(in)), make([]uint64, len(in))
		for b.Loop() {
			var t Table
			if n := t.InternAll(in, codes, hs); n != len(in) {
				b.Fatal(n)
			}
		}
	})
}
