package engine

import (
	"context"
	"fmt"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/check"
	"sutura.dev/exec-arrow/internal/files"
	"sutura.dev/exec-arrow/internal/format"
	"sutura.dev/exec-arrow/internal/kernel"
)

// SpanReadMaxBytes bounds the CSV and NDJSON files DataSpan reads to find a
// time column's first and last day: up to this many bytes (as stored,
// compressed or not) the read takes a fraction of a second; a larger text
// table has no span until a check or a scan read it whole. Parquet files
// are never read for it: their row-group statistics carry the answer (a
// compressed Parquet file, which must be decompressed whole to reach
// them, counts against the bound).
const SpanReadMaxBytes int64 = 64 << 20

// spanReadMax is SpanReadMaxBytes, lowered by tests.
var spanReadMax = SpanReadMaxBytes

// DataSpan returns the first and the last day (both included) on which
// column of model's table holds a value: for a date column its dates, for
// a timestamp column the UTC days of its instants. It is cheap or it says
// no: Parquet parts answer from their row-group statistics without reading
// data; CSV and NDJSON parts answer from the checks' whole read of them
// (Validate for a part of at most SampleRows records, CheckDeferred for
// the others) once every one was read, or from a question's scan of these
// very files that read them to the end (an anchor's at start: a scan
// parses every record's time before testing the range), and otherwise,
// with compressed Parquet parts, are read for that one column when they
// hold at most SpanReadMaxBytes together; ok is false when a part cannot
// tell cheaply, when the column is neither a date nor a timestamp, or
// when it holds no value. A missing file or column is an error (Validate
// names it first at start).
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
	return check.TableSpan(ctx, e.cfg.Files, e.footers, &e.deferred, &e.scanned, tf, model, w, spanReadMax)
}

// recordDays records the days a scan of q's base table that ended without
// error found in its text parts' time columns (fileProducer.textDays), for
// DataSpan.
func (e *Engine) recordDays(q *query, src kernel.Producer) {
	if fp, ok := src.(*fileProducer); ok {
		e.scanned.Record(q.tf, fp.textDays())
	}
}
