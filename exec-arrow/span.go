package engine

import (
	"context"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/files"
	"sutura.dev/exec-arrow/internal/format"
)

// SpanReadMaxBytes bounds the CSV and NDJSON files DataSpan reads to find a
// time column's first and last day: up to this many bytes (as stored,
// compressed or not) the read takes a fraction of a second; a larger text
// table has no span. Parquet files are never read for it: their row-group
// statistics carry the answer (a compressed Parquet file, which must be
// decompressed whole to reach them, counts against the bound).
const SpanReadMaxBytes int64 = 64 << 20

// spanReadMax is SpanReadMaxBytes, lowered by tests.
var spanReadMax = SpanReadMaxBytes

// DataSpan returns the first and the last day (both included) on which
// column of model's table holds a value: for a date column its dates, for
// a timestamp column the UTC days of its instants. It is cheap or it says
// no: Parquet parts answer from their row-group statistics without reading
// data, CSV and NDJSON parts (and compressed Parquet parts) of at most
// SpanReadMaxBytes together are read for that one column; ok is false when a part cannot tell cheaply, when
// the column is neither a date nor a timestamp, or when it holds no value.
// A missing file or column is an error (Validate names it first at start).
func (e *Engine) DataSpan(ctx context.Context, model, column string) (first, last domain.Date, ok bool, err error) {
	return e.dataSpan(ctx, model, column)
}

func (e *Engine) dataSpan(ctx context.Context, model, name string) (first, last domain.Date, ok bool, err error) {
	m, found := e.models[model]
	if !found {
		return 0, 0, false, fmt.Errorf("files source %s: no model %s", e.cfg.Source, model)
	}
	w := format.Want{Name: name}
	for _, c := range m.Columns {
		if c.Name == name {
			w.Type = c.Type
		}
	}
	switch w.Type {
	case domain.TypeUnset, domain.TypeDate, domain.TypeTimestamp:
	default:
		return 0, 0, false, nil
	}
	tf, err := files.Locate(e.cfg.Files, m.BareTable())
	if err != nil {
		return 0, 0, false, fmt.Errorf("model %s: %w", m.Name, err)
	}
	var text []files.Part
	var read int64 // bytes that must be read whole: text parts, compressed Parquet
	for _, p := range tf.Parts {
		if p.Format != files.FormatParquet || p.Codec != files.CodecNone {
			read += p.Size
		}
		if p.Format != files.FormatParquet {
			text = append(text, p)
		}
	}
	if read > spanReadMax {
		return 0, 0, false, nil
	}
	lo, hi := int32(math.MaxInt32), int32(math.MinInt32)
	for _, p := range tf.Parts {
		if p.Format != files.FormatParquet {
			continue
		}
		pmin, pmax, told, err := e.parquetSpan(ctx, p, name)
		if err != nil || !told {
			return 0, 0, false, err
		}
		lo, hi = min(lo, pmin), max(hi, pmax)
	}
	if len(text) > 0 {
		l := format.NewLoader(ctx, e.cfg.Files, []format.Want{w}, false, nil)
		for _, p := range text {
			if err := l.ReadPart(p); err != nil {
				if ctx.Err() != nil {
					return 0, 0, false, ctx.Err()
				}
				return 0, 0, false, fmt.Errorf("model %s: %w", m.Name, err)
			}
		}
		c := l.Columns()[name]
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

// parquetSpan is the day range of column in one Parquet part from its
// footer alone: told is false when a row group holding values lacks
// statistics, or the column is not a date or a timestamp.
func (e *Engine) parquetSpan(ctx context.Context, p files.Part, column string) (lo, hi int32, told bool, err error) {
	l := format.NewLoader(ctx, e.cfg.Files, nil, false, nil)
	src, closer, err := l.ParquetSource(p)
	if err != nil {
		return 0, 0, false, err
	}
	defer closer()
	pf, err := file.NewParquetReader(src)
	if err != nil {
		return 0, 0, false, fmt.Errorf("file %s: not a Parquet file: %w", p.Path, err)
	}
	defer pf.Close()
	md := pf.MetaData()
	if err := format.CheckRows(p.Path, md); err != nil {
		return 0, 0, false, err
	}
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
