package column

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/distinct"
	"sutura.dev/exec-arrow/internal/intern"
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
		require.Equal(t, codes[v], c.Index(int32(r)), "row %d", r)
	}
	assert.Nil(t, c.Valid)
}

// TestTextBuilderRefusesPastTheArrowLimit: a value that would take the
// dictionary's bytes past what an Arrow string array addresses is refused
// with ErrTextTooLarge and adds nothing; a value already held is still
// taken, and the column finishes with what was added.
func TestTextBuilderRefusesPastTheArrowLimit(t *testing.T) {
	defer func(n int) { intern.MaxBytes = n }(intern.MaxBytes)
	intern.MaxBytes = 10
	bl := NewBuilderSpec(domain.TypeText, DecimalSpec{}, false)
	require.NoError(t, bl.AppendText("abcdef"))
	require.ErrorIs(t, bl.AppendText("ghijkl"), ErrTextTooLarge)
	require.NoError(t, bl.AppendText("abcdef"))
	require.NoError(t, bl.AppendText("ghij"))
	c := bl.Finish("t")
	assert.Equal(t, []string{"abcdef", "ghij"}, c.Dict)
	assert.Equal(t, []uint8{0, 0, 1}, c.Idx8)
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

// AppendColumn codes a batch's new values together, looking ahead
// (intern.Table.InternAll), and must build what value by value builds: the
// same dictionary in first-met order, codes and nulls, over batches that
// share a dictionary (the same column ID) and batches that do not; and
// past the Arrow limit, fail at the same row with the rows before it
// appended.
func TestAppendColumnAsValueByValue(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 4))
	pool := make([]string, 30_000)
	for i := range pool {
		pool[i] = fmt.Sprintf("%x", rng.Uint64())
	}
	batch := func(id uint64, dict []string, n int) *Column {
		c := &Column{Type: domain.TypeText, N: n, Dict: dict, Idx: make([]int32, n), Valid: make([]byte, (n+7)/8), ID: id}
		for i := range n {
			c.Idx[i] = int32(rng.IntN(len(dict)))
			if rng.IntN(13) != 0 {
				c.Valid[i>>3] |= 1 << (i & 7)
			}
		}
		return c
	}
	var batches []*Column
	for b := range 12 {
		lo := rng.IntN(len(pool) - 5_000)
		dict := pool[lo : lo+1+rng.IntN(5_000)] // below aheadDict and above
		batches = append(batches, batch(uint64(100+b/3), dict, 1+rng.IntN(20_000)))
		if b%3 != 0 { // the same ID: the same dictionary
			batches[b].Dict = batches[b-1].Dict
			for i := range batches[b].Idx {
				batches[b].Idx[i] %= int32(len(batches[b].Dict))
			}
		}
	}
	valueByValue := func(bl Builder, c *Column) (int, error) {
		for i := range c.N {
			if !c.IsValid(int32(i)) {
				bl.AppendNull()
			} else if err := bl.AppendText(c.Dict[c.Idx[i]]); err != nil {
				return i, err
			}
		}
		return 0, nil
	}
	whole := NewBuilderSpec(domain.TypeText, DecimalSpec{}, false)
	each := NewBuilderSpec(domain.TypeText, DecimalSpec{}, false)
	for _, c := range batches {
		_, err := whole.(*textBuilder).AppendColumn(c)
		require.NoError(t, err)
		_, err = valueByValue(each, c)
		require.NoError(t, err)
	}
	require.Equal(t, each.(*textBuilder).bytes, whole.(*textBuilder).bytes, "bytes accounted")
	want, got := each.Finish("s"), whole.Finish("s")
	require.Equal(t, want.Dict, got.Dict)
	require.Equal(t, indexesOf(want), indexesOf(got))
	require.Equal(t, want.Idx8 == nil, got.Idx8 == nil, "the same width")
	require.Equal(t, want.Valid, got.Valid)

	defer func(n int) { intern.MaxBytes = n }(intern.MaxBytes)
	// A dictionary coded together (at least aheadDict values) and one
	// coded row by row.
	for _, size := range []int{2_000, aheadDict / 2} {
		intern.MaxBytes = 16 * size / 3
		whole = NewBuilderSpec(domain.TypeText, DecimalSpec{}, false)
		each = NewBuilderSpec(domain.TypeText, DecimalSpec{}, false)
		c := batch(7, pool[:size], 3_000)
		wi, werr := whole.(*textBuilder).AppendColumn(c)
		ei, eerr := valueByValue(each, c)
		require.ErrorIs(t, werr, ErrTextTooLarge)
		require.ErrorIs(t, eerr, ErrTextTooLarge)
		require.Equal(t, ei, wi, "the row that fails, %d values", size)
		eIdx, eWide := built(each.(*textBuilder))
		wIdx, wWide := built(whole.(*textBuilder))
		require.Equal(t, eIdx, wIdx, "the rows before it, %d values", size)
		require.Equal(t, eWide, wWide, "their width, %d values", size)
		require.Equal(t, each.(*textBuilder).mask, whole.(*textBuilder).mask, "their nulls, %d values", size)
	}
}

// A large dictionary's arrays double as they grow, and the column keeps
// about what they hold: at most an eighth more than their values (what
// the cache counts for them), the values as appended.
func TestLargeDictionaryKeepsWhatItHolds(t *testing.T) {
	const n = 1_200_000
	bl := NewBuilderSpec(domain.TypeText, DecimalSpec{}, false)
	id := func(i int) string { return fmt.Sprintf("%016x", uint64(i)*0x9e3779b97f4a7c15) }
	for i := range n {
		require.NoError(t, bl.AppendText(id(i)))
	}
	c := bl.Finish("s")
	require.Len(t, c.Dict, n)
	require.Equal(t, id(n-1), c.Dict[n-1])
	data := c.Arr.(*array.Dictionary).Dictionary().Data().Buffers()[2]
	assert.LessOrEqual(t, data.Cap(), 16*n+16*n/8, "the texts' bytes")
	assert.LessOrEqual(t, cap(c.DictHash), n+n/8, "the hashes")
}

// BenchmarkAppendColumnLowCard appends 32 batches of 65,536 rows, each
// with a dictionary of its own of five values (as PLAIN pages decode):
// the path of a small dictionary, coded in the one pass over the rows.
func BenchmarkAppendColumnLowCard(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 1 << 16
	dict := []string{"view", "click", "purchase", "cart", "search"}
	c := &Column{Type: domain.TypeText, N: n, Dict: dict, Idx: make([]int32, n), Valid: make([]byte, n/8), ID: 77}
	for i := range n {
		c.Idx[i] = int32(rng.IntN(len(dict)))
		if i%17 != 0 {
			c.Valid[i>>3] |= 1 << (i & 7)
		}
	}
	for b.Loop() {
		bl := NewBuilderSpec(domain.TypeText, DecimalSpec{}, false).(*textBuilder)
		for range 32 {
			c.ID++
			if _, err := bl.AppendColumn(c); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// indexesOf is c's dictionary index per row, whichever their width.
func indexesOf(c *Column) []int32 {
	out := make([]int32, c.N)
	for r := range out {
		out[r] = c.Index(int32(r))
	}
	return out
}

// built is the indexes b holds so far, whichever their width, and
// whether they are wide.
func built(b *textBuilder) ([]int32, bool) {
	if b.wide {
		return b.idx, true
	}
	out := make([]int32, len(b.idx8))
	for i, k := range b.idx8 {
		out[i] = int32(k)
	}
	return out, false
}

// TestTextIndexesNarrowThenWide: a text column's indexes take a byte a
// row while its dictionary holds at most 256 values, and four once it
// passes them, value by value and batch by batch (AppendColumn, from
// batches of either width), with the room reserved kept and metered.
func TestTextIndexesNarrowThenWide(t *testing.T) {
	vals := make([]string, 300)
	for i := range vals {
		vals[i] = fmt.Sprintf("v%03d", i)
	}
	// Value by value: 256 values stay narrow, the 257th widens.
	bl := NewBuilderSpec(domain.TypeText, DecimalSpec{}, false).(*textBuilder)
	bl.Reserve(1000)
	require.Equal(t, int64(1000+125), bl.ReserveBytes(1000))
	for i := range 256 {
		require.NoError(t, bl.AppendText(vals[255-i]))
	}
	bl.AppendNull()
	require.False(t, bl.wide)
	require.Equal(t, 1000, cap(bl.idx8), "the room reserved")
	narrowSize := bl.Size()
	require.NoError(t, bl.AppendText(vals[256]))
	require.True(t, bl.wide)
	require.Equal(t, 1000, cap(bl.idx), "the room reserved, kept")
	require.Equal(t, int64(4000+125), bl.ReserveBytes(1000))
	assert.Equal(t, narrowSize+3*257+52+4+3*(1000-258), bl.Size(), "the new value, and the spare room metered at its new width")
	c := bl.Finish("t")
	require.Nil(t, c.Idx8)
	require.Len(t, c.Idx, 258)
	for r := range 256 {
		require.Equal(t, vals[255-r], c.Dict[c.Idx[r]], "row %d", r)
	}
	require.False(t, c.IsValid(256))
	require.Equal(t, vals[256], c.Dict[c.Idx[257]])

	small := NewBuilderSpec(domain.TypeText, DecimalSpec{}, false)
	for _, v := range []string{"b", "a", "b"} {
		require.NoError(t, small.AppendText(v))
	}
	c = small.Finish("t")
	require.Nil(t, c.Idx)
	require.Equal(t, []uint8{0, 1, 0}, c.Idx8)
	require.Equal(t, arrow.PrimitiveTypes.Uint8, c.Arr.DataType().(*arrow.DictionaryType).IndexType)
	require.Equal(t, 3, c.Arr.(*array.Dictionary).Indices().Data().Buffers()[1].Len(), "a byte a row")

	// Batch by batch: a narrow batch, then a wide one whose values pass
	// 256 in its middle, then a narrow one again.
	rng := rand.New(rand.NewPCG(3, 5))
	narrowBatch := func(id uint64, dict []string, n int) *Column {
		src := NewBuilderSpec(domain.TypeText, DecimalSpec{}, false)
		for range n {
			if rng.IntN(9) == 0 {
				src.AppendNull()
			} else {
				require.NoError(t, src.AppendText(dict[rng.IntN(len(dict))]))
			}
		}
		c := src.Finish("b")
		require.NotNil(t, c.Idx8)
		c.ID = id
		return c
	}
	wide := &Column{Type: domain.TypeText, N: 4000, Dict: vals, Idx: make([]int32, 4000), ID: 2}
	for i := range wide.Idx {
		wide.Idx[i] = int32(i * 7 % len(vals))
	}
	batches := []*Column{narrowBatch(1, vals[:100], 3000), wide, narrowBatch(3, vals[50:250], 3000)}
	for _, order := range [][]int{{0, 1, 2}, {0, 2}, {2, 0, 1}} {
		whole := NewBuilderSpec(domain.TypeText, DecimalSpec{}, false)
		each := NewBuilderSpec(domain.TypeText, DecimalSpec{}, false)
		for _, b := range order {
			c := batches[b]
			_, err := whole.(*textBuilder).AppendColumn(c)
			require.NoError(t, err)
			for r := range c.N {
				if !c.IsValid(int32(r)) {
					each.AppendNull()
				} else {
					require.NoError(t, each.AppendText(c.Dict[c.Index(int32(r))]))
				}
			}
		}
		wi, ww := built(whole.(*textBuilder))
		ei, ew := built(each.(*textBuilder))
		require.Equal(t, ei, wi, "batches %v", order)
		require.Equal(t, slices.Contains(order, 1), ww, "batches %v: wide when a batch passes 256 values", order)
		require.Equal(t, ew, ww, "batches %v", order)
		want, got := each.Finish("s"), whole.Finish("s")
		require.Equal(t, want.Dict, got.Dict)
		require.Equal(t, want.Valid, got.Valid)
		require.Equal(t, indexesOf(want), indexesOf(got))
	}
}
