package footer

import (
	"bytes"
	"fmt"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/stretchr/testify/require"
)

// parquetOf writes one Parquet file of an int64 column holding values.
func parquetOf(t *testing.T, values ...int64) []byte {
	t.Helper()
	return parquetGrouped(t, 0, values...)
}

// parquetGrouped writes values in row groups of rowGroup rows (0: one).
func parquetGrouped(t *testing.T, rowGroup int64, values ...int64) []byte {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{{Name: "n", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues(values, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	props := parquet.NewWriterProperties()
	if rowGroup > 0 {
		props = parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(rowGroup))
	}
	w, err := pqarrow.NewFileWriter(schema, &buf, props, pqarrow.DefaultWriterProps())
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
	return buf.Bytes()
}

// maxOf is the maximum the footer's statistics give column 0 of row group 0.
func maxOf(t *testing.T, md *metadata.FileMetaData) int64 {
	t.Helper()
	cc, err := md.RowGroup(0).ColumnChunk(0)
	require.NoError(t, err)
	st, err := cc.Statistics()
	require.NoError(t, err)
	return st.(*metadata.Int64Statistics).Max()
}

func TestReadKeepsAFooterWhileItsBytesStay(t *testing.T) {
	data := parquetOf(t, 1, 2, 3)
	var c Cache
	decoded := Decodes()
	first, err := c.Read(bytes.NewReader(data), "events.parquet")
	require.NoError(t, err)
	require.EqualValues(t, 3, first.NumRows)
	again, err := c.Read(bytes.NewReader(bytes.Clone(data)), "events.parquet")
	require.NoError(t, err)
	require.Same(t, first, again, "the same footer bytes were decoded again")
	require.Equal(t, 1, c.Len())
	require.EqualValues(t, 1, Decodes()-decoded)
}

func TestReadDecodesAgainWhenTheBytesChange(t *testing.T) {
	// Same key, same size, same row count: only the values (and so the
	// statistics in the footer) differ, as when a file is rewritten in
	// place within its modification time's resolution.
	before, after := parquetOf(t, 1, 2, 3), parquetOf(t, 1, 2, 9)
	require.Len(t, after, len(before))
	var c Cache
	md, err := c.Read(bytes.NewReader(before), "events.parquet")
	require.NoError(t, err)
	require.EqualValues(t, 3, maxOf(t, md))
	md2, err := c.Read(bytes.NewReader(after), "events.parquet")
	require.NoError(t, err)
	require.NotSame(t, md, md2)
	require.EqualValues(t, 9, maxOf(t, md2), "a rewritten file was read through its old footer")
	require.EqualValues(t, 3, maxOf(t, md), "a footer handed out earlier changed")
}

func TestReadComparesALargeFooterWholly(t *testing.T) {
	// A footer of several comparison windows whose only difference is
	// in the statistics of its last row group.
	values := make([]int64, 3000)
	for i := range values {
		values[i] = int64(i % 100)
	}
	before := parquetGrouped(t, 1, values...)
	values[len(values)-1] = 77
	after := parquetGrouped(t, 1, values...)
	require.Len(t, after, len(before))
	n := len(before)
	require.Greater(t, int(uint32(before[n-8])|uint32(before[n-7])<<8|uint32(before[n-6])<<16), 3*64<<10, "the footer spans several windows")
	var c Cache
	md, err := c.Read(bytes.NewReader(before), "big.parquet")
	require.NoError(t, err)
	again, err := c.Read(bytes.NewReader(before), "big.parquet")
	require.NoError(t, err)
	require.Same(t, md, again)
	changed, err := c.Read(bytes.NewReader(after), "big.parquet")
	require.NoError(t, err)
	require.NotSame(t, md, changed, "a change in the footer's last window went unseen")
	last := changed.NumRowGroups() - 1
	cc, err := changed.RowGroup(last).ColumnChunk(0)
	require.NoError(t, err)
	st, err := cc.Statistics()
	require.NoError(t, err)
	require.EqualValues(t, 77, st.(*metadata.Int64Statistics).Max())
}

func TestReadKeepsFootersApartByKey(t *testing.T) {
	var c Cache
	a, err := c.Read(bytes.NewReader(parquetOf(t, 1)), "a.parquet")
	require.NoError(t, err)
	b, err := c.Read(bytes.NewReader(parquetOf(t, 1, 2)), "b.parquet")
	require.NoError(t, err)
	require.EqualValues(t, 1, a.NumRows)
	require.EqualValues(t, 2, b.NumRows)
	require.Equal(t, 2, c.Len())
}

func TestReadFailsAsTheLibraryDoes(t *testing.T) {
	valid := parquetOf(t, 1, 2, 3)
	badLength := bytes.Clone(valid)
	// The footer length says more than the file holds.
	badLength[len(badLength)-8], badLength[len(badLength)-5] = 0xff, 0x7f
	badFooter := bytes.Clone(valid)
	n := len(badFooter)
	for i := n - 8 - 40; i < n-8; i++ {
		badFooter[i] = 0xff
	}
	for name, data := range map[string][]byte{
		"empty":        {},
		"too small":    []byte("PAR1"),
		"no magic":     append(bytes.Clone(valid[:n-4]), "XXXX"...),
		"bad length":   badLength,
		"bad footer":   badFooter,
		"text":         []byte("day,n\n2025-01-01,3\n"),
		"encrypted":    append(bytes.Clone(valid[:n-4]), "PARE"...),
		"only the end": valid[n-12:],
	} {
		t.Run(name, func(t *testing.T) {
			var c Cache
			_, err := c.Read(bytes.NewReader(data), name)
			require.Error(t, err)
			_, want := file.NewParquetReader(bytes.NewReader(data))
			require.Error(t, want, "the library opened what the cache refused")
			require.Zero(t, c.Len())
		})
	}
}

func TestANilCacheKeepsNothing(t *testing.T) {
	var c *Cache
	md, err := c.Read(bytes.NewReader(parquetOf(t, 4, 5)), "x.parquet")
	require.NoError(t, err)
	require.EqualValues(t, 2, md.NumRows)
	require.Zero(t, c.Len())
}

func TestTheCacheKeepsItsBound(t *testing.T) {
	data := parquetOf(t, 1, 2, 3)
	footerBytes := int64(len(data)) // more than the footer alone
	c := Cache{Max: 3 * footerBytes}
	for i := range 10 {
		_, err := c.Read(bytes.NewReader(data), fmt.Sprintf("part-%d.parquet", i))
		require.NoError(t, err)
		c.mu.Lock()
		kept := c.bytes
		c.mu.Unlock()
		require.LessOrEqual(t, kept, c.Max, "after %d reads", i+1)
	}
	require.Positive(t, c.Len())
	require.Less(t, c.Len(), 10)

	small := Cache{Max: footerBytes / 2}
	_, err := small.Read(bytes.NewReader(data), "big.parquet")
	require.NoError(t, err)
	require.Zero(t, small.Len(), "a footer over a quarter of the bound was kept")
}

func TestConcurrentReadsShareOneFooter(t *testing.T) {
	data := parquetOf(t, 1, 2, 3)
	var c Cache
	var wg sync.WaitGroup
	got := make([]*metadata.FileMetaData, 8)
	for i := range got {
		wg.Go(func() {
			md, err := c.Read(bytes.NewReader(data), "shared.parquet")
			if err == nil {
				got[i] = md
				_ = md.RowGroup(0).NumRows()
			}
		})
	}
	wg.Wait()
	for _, md := range got {
		require.NotNil(t, md)
		require.EqualValues(t, 3, md.NumRows)
	}
	last, err := c.Read(bytes.NewReader(data), "shared.parquet")
	require.NoError(t, err)
	require.Contains(t, got, last, "the footer kept is none of those handed out")
	require.Equal(t, 1, c.Len())
}
