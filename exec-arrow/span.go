package engine

import (
	"context"
	"fmt"
	"math"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/check"
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
// data; CSV and NDJSON parts answer from the checks' whole read of them
// (Validate for a part of at most SampleRows records, CheckDeferred for
// the others) once every one was read, and before that, with compressed
// Parquet parts, are read for that one column when they hold at most
// SpanReadMaxBytes together; ok is false when a part cannot tell cheaply, when
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
	lo, hi := int32(math.MaxInt32), int32(math.MinInt32)
	days, known := e.deferred.TextDays(model, name) // the text parts, read whole by the checks
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
	if read > spanReadMax {
		return 0, 0, false, nil
	}
	for _, p := range tf.Parts {
		if p.Format != files.FormatParquet {
			continue
		}
		pmin, pmax, told, err := check.ParquetSpan(ctx, e.cfg.Files, e.footers, p, name)
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
