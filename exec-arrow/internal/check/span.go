package check

import (
	"context"
	"fmt"
	"io/fs"
	"math"

	"github.com/apache/arrow-go/v18/parquet/metadata"

	"sutura.dev/exec-arrow/internal/files"
	"sutura.dev/exec-arrow/internal/footer"
	"sutura.dev/exec-arrow/internal/format"
)

// ParquetSpan is the day range of column in one Parquet part from its
// footer alone (read through fc): told is false when a row group holding
// values lacks statistics, or the column is not a date or a timestamp.
func ParquetSpan(ctx context.Context, fsys fs.FS, fc *footer.Cache, p files.Part, column string) (lo, hi int32, told bool, err error) {
	md, closer, err := Footer(ctx, fsys, p, fc)
	if err != nil {
		return 0, 0, false, err
	}
	defer closer()
	idx := md.Schema.ColumnIndexByName(column)
	if idx < 0 {
		return 0, 0, false, fmt.Errorf("file %s: column %s is missing", p.Path, column)
	}
	toDay, ok := format.ParquetDay(md.Schema.Column(idx))
	if !ok {
		return 0, 0, false, nil
	}
	lo, hi = math.MaxInt32, math.MinInt32
	for rg := range md.NumRowGroups() {
		if err := ctx.Err(); err != nil {
			return 0, 0, false, err
		}
		rgm := md.RowGroup(rg)
		if rgm.NumRows() == 0 {
			continue
		}
		cc, err := rgm.ColumnChunk(idx)
		if err != nil {
			return 0, 0, false, fmt.Errorf("file %s, row group %d: %w", p.Path, rg, err)
		}
		set, err := cc.StatsSet()
		if err != nil || !set {
			return 0, 0, false, nil
		}
		st, err := cc.Statistics()
		if err != nil || st == nil {
			return 0, 0, false, nil
		}
		if st.NullCount() == rgm.NumRows() {
			continue
		}
		if !st.HasMinMax() {
			return 0, 0, false, nil
		}
		var mn, mx int64
		switch s := st.(type) {
		case *metadata.Int32Statistics:
			mn, mx = int64(s.Min()), int64(s.Max())
		case *metadata.Int64Statistics:
			mn, mx = s.Min(), s.Max()
		default:
			return 0, 0, false, nil
		}
		lo, hi = min(lo, toDay(mn)), max(hi, toDay(mx))
	}
	return lo, hi, true, nil
}
