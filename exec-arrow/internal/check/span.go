package check

import (
	"context"
	"fmt"
	"io/fs"
	"math"

	"github.com/apache/arrow-go/v18/parquet/metadata"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
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

// TableSpan is the first and the last day (both included) on which column
// w of table tf (model's) holds a value, when it is cheap to tell
// (Engine.DataSpan): Parquet parts from their footers; text parts from
// the checks' whole read of them (d) once every one was read, or from a
// complete scan of these very files (sc), else, with compressed Parquet
// parts, read for that one column when they hold at most maxRead bytes
// together. ok is false when a part cannot tell cheaply or the column
// holds no value.
func TableSpan(ctx context.Context, fsys fs.FS, fc *footer.Cache, d *Deferred, sc *Scanned, tf *files.Table, model string, w format.Want, maxRead int64) (first, last domain.Date, ok bool, err error) {
	var text []files.Part
	var read int64 // bytes that must be read whole: text parts, compressed Parquet
	lo, hi := int32(math.MaxInt32), int32(math.MinInt32)
	days, known := d.TextDays(model, w.Name) // the text parts, read whole by the checks
	if !known {
		days, known = sc.Days(tf, w.Name, w.Type) // or by a scan
	}
	if known {
		lo, hi = days.Lo, days.Hi
	}
	for _, p := range tf.Parts {
		if p.Format == files.FormatParquet && p.Codec != files.CodecNone || p.Format != files.FormatParquet && !known {
			read += p.Size
		}
		if p.Format != files.FormatParquet && !known {
			text = append(text, p)
		}
	}
	if read > maxRead {
		return 0, 0, false, nil
	}
	for _, p := range tf.Parts {
		if p.Format != files.FormatParquet {
			continue
		}
		pmin, pmax, told, err := ParquetSpan(ctx, fsys, fc, p, w.Name)
		if err != nil || !told {
			return 0, 0, false, err
		}
		lo, hi = min(lo, pmin), max(hi, pmax)
	}
	if len(text) > 0 {
		l := format.NewLoader(ctx, fsys, []format.Want{w}, false, nil)
		for _, p := range text {
			if err := l.ReadPart(p); err != nil {
				if ctx.Err() != nil {
					return 0, 0, false, ctx.Err()
				}
				return 0, 0, false, fmt.Errorf("model %s: %w", model, err)
			}
		}
		cols, err := l.Columns()
		if err != nil {
			return 0, 0, false, fmt.Errorf("model %s: %w", model, err)
		}
		c := cols[w.Name]
		if c == nil || (c.Type != domain.TypeDate && c.Type != domain.TypeTimestamp) {
			return 0, 0, false, nil
		}
		z := column.ZoneOf(c, 0, c.N)
		lo, hi = min(lo, z.Min), max(hi, z.Max)
	}
	if lo > hi {
		return 0, 0, false, nil
	}
	return domain.Date(lo), domain.Date(hi), true, nil
}
