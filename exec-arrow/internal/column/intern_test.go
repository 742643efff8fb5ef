package column

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/distinct"
)

// TestTextBuilderInternsEveryValueOnce builds a text column of 200,000
// values drawn from 50,000 (with the empty text among them, and values
// that share prefixes and lengths) and checks it against a Go map: one
// code per distinct value in first-seen order, every row's value back
// through its code, and the hash kept for each entry equal to
// distinct.HashString of it. The table grows through many doublings on
// the way, so an entry misplaced by a doubling would be found twice.
func TestTextBuilderInternsEveryValueOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pool := make([]string, 50_000)
	for i := range pool {
		pool[i] = fmt.Sprintf("session-%0*d", 1+i%7, i)
	}
	pool[0] = ""
	bl := NewBuilderSpec(domain.TypeText, DecimalSpec{}, false)
	rows := make([]string, 200_000)
	codes := map[string]int32{}
	var order []string
	for r := range rows {
		v := pool[rng.IntN(len(pool))]
		rows[r] = v
		if _, ok := codes[v]; !ok {
			codes[v] = int32(len(order))
			order = append(order, v)
		}
		require.NoError(t, bl.AppendText(v))
	}
	c := bl.Finish("session_id")
	require.Equal(t, order, c.Dict)
	require.Len(t, c.DictHash, len(c.Dict))
	for k, v := range c.Dict {
		require.Equal(t, distinct.HashString(v), c.DictHash[k], "entry %d", k)
	}
	for r, v := range rows {
		require.Equal(t, codes[v], c.Idx[r], "row %d", r)
	}
	assert.Nil(t, c.Valid)
}

// TestTextBuilderRefusesPastTheArrowLimit: a value that would take the
// dictionary's bytes past what an Arrow string array addresses is refused
// with ErrTextTooLarge and adds nothing; a value already held is still
// taken, and the column finishes with what was added.
func TestTextBuilderRefusesPastTheArrowLimit(t *testing.T) {
	defer func(n int) { maxDataBytes = n }(maxDataBytes)
	maxDataBytes = 10
	bl := NewBuilderSpec(domain.TypeText, DecimalSpec{}, false)
	require.NoError(t, bl.AppendText("abcdef"))
	require.ErrorIs(t, bl.AppendText("ghijkl"), ErrTextTooLarge)
	require.NoError(t, bl.AppendText("abcdef"))
	require.NoError(t, bl.AppendText("ghij"))
	c := bl.Finish("t")
	assert.Equal(t, []string{"abcdef", "ghij"}, c.Dict)
	assert.Equal(t, []int32{0, 0, 1}, c.Idx)
}

// BenchmarkTextBuilder builds a block of 65,536 rows of 24-byte session
// ids, distinct at the given share of rows, the way a streamed CSV block
// of a high-cardinality column is built.
func BenchmarkTextBuilder(b *testing.B) {
	for _, share := range []int{100, 40, 1} {
		b.Run(fmt.Sprintf("distinct-%dpct", share), func(b *testing.B) {
			const n = 1 << 16
			vals := make([]string, n)
			distinctN := max(1, n*share/100)
			for i := range vals {
				vals[i] = fmt.Sprintf("s-%021d", (i*7919)%distinctN)
			}
			b.ReportAllocs()
			for b.Loop() {
				bl := NewBuilderSpec(domain.TypeText, DecimalSpec{}, false)
				bl.(Reserver).Reserve(n)
				bl.(DictReserver).ReserveDict(distinctN, 24*distinctN)
				for _, v := range vals {
					if err := bl.AppendText(v); err != nil {
						b.Fatal(err)
					}
				}
				_ = bl.Finish("s")
			}
		})
	}
}
