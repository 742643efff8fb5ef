package number

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
)

// lowered runs f with DictMax and bufBytes lowered, so that a few
// thousand values are numbered in partitions that write their files.
func lowered(t *testing.T, dict, buf int) {
	t.Helper()
	d, b := DictMax, bufBytes
	DictMax, bufBytes = dict, buf
	t.Cleanup(func() { DictMax, bufBytes = d, b })
}

// values are n rows of about distinct values, every eleventh null ("").
func values(n, distinct int) []string {
	rng := rand.New(rand.NewPCG(3, 4))
	out := make([]string, n)
	for i := range out {
		if i%11 == 5 {
			continue
		}
		out[i] = fmt.Sprintf("v%x", rng.IntN(distinct)*7919)
	}
	return out
}

// build appends vals to b, half of them as text and half as batch
// columns of 100 rows each.
func build(t *testing.T, b *Builder, vals []string) *column.Column {
	t.Helper()
	for lo := 0; lo < len(vals); lo += 100 {
		batch := vals[lo:min(lo+100, len(vals))]
		if lo/100%2 == 0 {
			for _, v := range batch {
				if v == "" {
					b.AppendNull()
				} else {
					require.NoError(t, b.AppendText(v))
				}
			}
			continue
		}
		tb := column.NewBuilder(domain.TypeText, false)
		for _, v := range batch {
			if v == "" {
				tb.AppendNull()
			} else {
				require.NoError(t, tb.AppendText(v))
			}
		}
		_, err := b.AppendColumn(tb.Finish("batch"))
		require.NoError(t, err)
	}
	require.NoError(t, b.Err())
	c := b.Finish("v")
	require.NoError(t, b.Err())
	require.NotNil(t, c)
	return c
}

// requireNumbers checks that c numbers vals: nulls where they are null,
// and equal numbers exactly where the values are equal, 0 to distinct-1.
func requireNumbers(t *testing.T, c *column.Column, vals []string) {
	t.Helper()
	require.Equal(t, domain.TypeInteger, c.Type)
	require.Equal(t, len(vals), c.N)
	byValue, byNumber := map[string]int64{}, map[int64]string{}
	for r, v := range vals {
		if v == "" {
			require.False(t, c.IsValid(int32(r)), "row %d is null", r)
			continue
		}
		require.True(t, c.IsValid(int32(r)), "row %d", r)
		n := c.Int(int32(r))
		if m, ok := byValue[v]; ok {
			require.Equal(t, m, n, "row %d: an equal value, an equal number", r)
		}
		if w, ok := byNumber[n]; ok {
			require.Equal(t, w, v, "row %d: an equal number, an equal value", r)
		}
		byValue[v], byNumber[n] = n, v
	}
	for n := range byNumber {
		require.True(t, n >= 0 && n < int64(len(byNumber)), "numbers are 0 to distinct-1: %d", n)
	}
}

// TestNumbersPastTheDictionary: values that pass DictMax are numbered in
// partitions (their files written), every equal value alike and every
// other apart, whether they came before the dictionary filled (remapped)
// or after, as text or in batch columns, nulls kept.
func TestNumbersPastTheDictionary(t *testing.T) {
	lowered(t, 300, 64)
	vals := values(40_000, 5_000)
	b := New(t.TempDir())
	c := build(t, b, vals)
	assert.True(t, b.Numbering())
	files := 0
	for _, p := range b.parts {
		if p.size > 0 {
			files++
		}
	}
	assert.Equal(t, Parts, files, "every partition wrote its file")
	requireNumbers(t, c, vals)
	assert.Positive(t, c.Bytes)
}

// TestFewValuesStayText: a column whose values fit the dictionary is the
// text column a text builder makes.
func TestFewValuesStayText(t *testing.T) {
	vals := values(5_000, 50)
	c := build(t, New(t.TempDir()), vals)
	require.Equal(t, domain.TypeText, c.Type)
	for r, v := range vals {
		if v == "" {
			require.False(t, c.IsValid(int32(r)))
			continue
		}
		require.Equal(t, v, c.Cell(int32(r)).Render(), "row %d", r)
	}
}

// TestNoNullNumbers: a column with no null has no validity; one whose
// dictionary held its only nulls keeps them.
func TestNoNullNumbers(t *testing.T) {
	lowered(t, 10, 1<<10)
	vals := values(3_000, 2_000)
	for i := range vals {
		if vals[i] == "" {
			vals[i] = "x"
		}
	}
	c := build(t, New(t.TempDir()), vals)
	assert.Nil(t, c.Valid)
	requireNumbers(t, c, vals)

	vals[3] = "" // before the dictionary passes DictMax
	c = build(t, New(t.TempDir()), vals)
	requireNumbers(t, c, vals)
}

// TestSizeCountsTheFinish: what a numbering builder reports holding
// covers its numbers and the partition it finishes at once.
func TestSizeCountsTheFinish(t *testing.T) {
	lowered(t, 100, 1<<10)
	b := New(t.TempDir())
	vals := values(20_000, 10_000)
	for _, v := range vals {
		if v == "" {
			b.AppendNull()
		} else {
			require.NoError(t, b.AppendText(v))
		}
	}
	size := b.Size()
	assert.GreaterOrEqual(t, size, int64(4*len(vals))+b.most, "numbers and the largest partition")
	require.NotNil(t, b.Finish("v"))
}

// A directory that cannot hold the partitions fails the builder with a
// named error, and Finish returns nothing.
func TestUnwritableDirectoryFails(t *testing.T) {
	lowered(t, 10, 16)
	b := New(t.TempDir() + "/absent")
	var err error
	for _, v := range values(2_000, 1_000) {
		if v != "" {
			if err = b.AppendText(v); err != nil {
				break
			}
		}
	}
	require.Error(t, err)
	assert.Contains(t, err.Error(), "numbering a text column's values")
	assert.Nil(t, b.Finish("v"))
}

// TestCloseGivesBackTheFiles: a numbering given up before Finish (its load
// cancelled, or another column failed) closes its partition files on
// Close instead of leaving them open until the collector finds them;
// Close again does nothing.
func TestCloseGivesBackTheFiles(t *testing.T) {
	lowered(t, 100, 1<<10)
	b := New(t.TempDir())
	for _, v := range values(20_000, 10_000) {
		if v != "" {
			require.NoError(t, b.AppendText(v))
		}
	}
	var open []*os.File
	for _, p := range b.parts {
		if p.f != nil {
			open = append(open, p.f)
		}
	}
	require.NotEmpty(t, open, "no partition wrote its file")
	b.Close()
	for _, f := range open {
		_, err := f.Stat()
		assert.ErrorIs(t, err, os.ErrClosed)
	}
	b.Close()
}
