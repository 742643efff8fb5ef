package format

import (
	"math"

	"github.com/apache/arrow-go/v18/parquet/metadata"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
)

// ParquetBytes is the compressed size of the wanted columns of md in the
// row groups that may hold a row of r by the statistics of timeColumn
// ("" keeps every row group): the estimate of docs/contract.md §15.
func ParquetBytes(md *metadata.FileMetaData, wants []Want, timeColumn string, r domain.Range) int64 {
	sch := md.Schema
	var leaves []int
	for _, w := range wants {
		if idx := sch.ColumnIndexByName(w.Name); idx >= 0 {
			leaves = append(leaves, idx)
		}
	}
	timeLeaf := -1
	if timeColumn != "" {
		timeLeaf = sch.ColumnIndexByName(timeColumn)
	}
	var n int64
	for rg := range md.NumRowGroups() {
		rgm := md.RowGroup(rg)
		if timeLeaf >= 0 {
			if z, ok := StatsZone(rgm, timeLeaf, sch.Column(timeLeaf), false); ok &&
				(z.Min > z.Max || z.Max < int32(r.Start) || z.Min >= int32(r.End)) {
				continue
			}
		}
		for _, leaf := range leaves {
			if cc, err := rgm.ColumnChunk(leaf); err == nil {
				n += cc.TotalCompressedSize()
			}
		}
	}
	return n
}

// IntsFit32 reports whether every value of integer column name in the
// file fits 32 bits, as the statistics of each of its row groups say; a
// row group without them, or a column not in the file, says no.
func IntsFit32(md *metadata.FileMetaData, name string) bool {
	sch := md.Schema
	leaf := sch.ColumnIndexByName(name)
	if leaf < 0 {
		return false
	}
	for rg := range md.NumRowGroups() {
		rgm := md.RowGroup(rg)
		if rgm.NumRows() == 0 {
			continue
		}
		st, ok := ChunkStats(rgm, leaf, sch.Column(leaf), domain.TypeInteger)
		if !ok || st.ILo < math.MinInt32 || st.IHi > math.MaxInt32 {
			return false
		}
	}
	return true
}

// DaysFit16 reports whether the days of date or timestamp column name in
// the file span at most 32,767 (89 years), as the statistics of each of
// its row groups say: then every day is within 32,768 of any one of
// them, and a date builder keeps them two bytes a row. A row group
// without them, or a column not in the file, says no.
func DaysFit16(md *metadata.FileMetaData, name string) bool {
	sch := md.Schema
	leaf := sch.ColumnIndexByName(name)
	if leaf < 0 {
		return false
	}
	least, most := int32(math.MaxInt32), int32(math.MinInt32)
	for rg := range md.NumRowGroups() {
		rgm := md.RowGroup(rg)
		if rgm.NumRows() == 0 {
			continue
		}
		z, ok := StatsZone(rgm, leaf, sch.Column(leaf), false)
		if !ok {
			return false
		}
		least, most = min(least, z.Min), max(most, z.Max)
	}
	return column.DaysFit16(least, most)
}
