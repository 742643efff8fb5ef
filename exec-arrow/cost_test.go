package engine

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/kernel"
)

func TestRealizedCost(t *testing.T) {
	// Three chunks of rows in time order: 2025-01 fills the first chunk,
	// 2025-02 the second, 2025-03 the rest.
	const n = 3 * column.ChunkRows
	var b strings.Builder
	b.WriteString("day,amount,region\n")
	for i := 0; i < n; i++ {
		b.WriteString([]string{"2025-01-15", "2025-02-15", "2025-03-15"}[i/column.ChunkRows])
		b.WriteString("," + strconv.Itoa(i%7) + "," + strconv.Itoa(i%3) + "\n")
	}
	dir := t.TempDir()
	write(t, dir, "fact.csv", b.String())
	write(t, dir, "regions.csv", "region,name\n0,North\n1,South\n2,East\n3,West\n")
	fact := domain.Model{Name: "fact", Source: "files", Table: "fact", Columns: []domain.ModelColumn{
		col("day", domain.TypeDate), col("amount", domain.TypeInteger), col("region", domain.TypeInteger)}}
	regions := domain.Model{Name: "regions", Source: "files", Table: "regions", Columns: []domain.ModelColumn{
		col("region", domain.TypeInteger), col("name", domain.TypeText)}}
	e := newEngine(t, os.DirFS(dir), fact, regions)
	leg := domain.Leg{
		Base:       tbl("fact", "t0", fact.Columns...),
		Joins:      []domain.Join{{Relationship: "r", To: tbl("regions", "t1", regions.Columns...), FromAlias: "t0", FromColumn: "region", ToColumn: "region"}},
		TimeColumn: "day",
		Dimensions: []domain.DimensionRef{dim("area", "t1", "name")},
		Metrics:    []domain.MetricRef{metric("total", sum("amount"))},
	}
	plan := mkPlan(t, domain.Month, "2025-02-01", "2025-03-01", leg)

	fileSize := func(name string) int64 {
		st, err := os.Stat(filepath.Join(dir, name))
		require.NoError(t, err)
		return st.Size()
	}
	rs, cold, err := e.ExecuteWithCost(context.Background(), plan)
	require.NoError(t, err)
	assert.Len(t, rs.Rows, 3)
	assert.Equal(t, int64(column.ChunkRows+4), cold.RowsScanned, "one chunk of the base table (the others are outside the range) and the whole lookup table")
	assert.Equal(t, fileSize("fact.csv")+fileSize("regions.csv"), cold.BytesRead, "a cold execution reads both files whole")

	require.NoError(t, e.Settle(context.Background()))
	_, warm, err := e.ExecuteWithCost(context.Background(), plan)
	require.NoError(t, err)
	assert.Equal(t, cold.RowsScanned, warm.RowsScanned)
	var expect int64
	for _, c := range e.cache.Cached("fact") {
		expect += c.Col.Bytes * column.ChunkRows / n
	}
	for _, c := range e.cache.Cached("regions") {
		expect += c.Col.Bytes
	}
	require.Positive(t, expect)
	assert.Equal(t, expect, warm.BytesRead, "a warm execution reads the scanned third of the base columns and the whole lookup table from the cache")
	assert.Less(t, warm.BytesRead, cold.BytesRead)
	assert.Equal(t, domain.CacheMiss, cold.Cache, "the cold execution read both tables from their files")
	assert.Equal(t, domain.CacheHit, warm.Cache, "the warm one found both in the cache")

	// Streaming the base table (as when its cached columns would not fit
	// beside the question's working memory) while the joined table is
	// cached is partial: the base was read from its file.
	var sm kernel.Meter
	_, _, err = e.attempt(context.Background(), plan, &sm, true)
	require.NoError(t, err)
	assert.Equal(t, domain.CachePartial, cacheState(&sm), "a streamed base beside a cached joined table")
	lookupBytes := int64(0)
	for _, c := range e.cache.Cached("regions") {
		lookupBytes += c.Col.Bytes
	}
	assert.Equal(t, fileSize("fact.csv")+lookupBytes, sm.Bytes.Load(), "the base's file and the joined table's cached columns")

	// A refused execution still reports what it read.
	tiny := mkPlan(t, domain.Month, "2025-01-01", "2025-04-01", leg)
	tiny.RowCap = 1
	_, spent, err := e.ExecuteWithCost(context.Background(), tiny)
	assert.Equal(t, domain.ResultTooLarge, refusal(t, err))
	assert.Equal(t, int64(n+4), spent.RowsScanned)
}
