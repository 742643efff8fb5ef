package engine

import (
	"context"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/cache"
	"sutura.dev/exec-arrow/internal/files"
	"sutura.dev/exec-arrow/internal/fillsize"
	"sutura.dev/exec-arrow/internal/format"
)

// scheduleFill asks the cache to read the columns q streamed in the
// background (cache.Schedule), when they would fit in the working set
// beside what running questions hold and the working memory the question
// itself took (held, the next such question would only evict them
// again). Reading them costs one more pass over the files, on one
// goroutine, after the answer: the first answer never waits for the
// cache.
func (e *Engine) scheduleFill(q *query, working int64) {
	if e.cfg.NoCacheFill {
		return
	}
	f := cache.Fill{Table: q.tf, Wants: q.baseWants}
	// A question that read a range of its time column may spare the next
	// such question a test of every cached row's time: the fill then
	// builds the column's day index.
	if tc := q.Base[q.TimeSlot]; !tc.ValidOnly && q.Span > 0 && (tc.Type == domain.TypeDate || tc.Type == domain.TypeTimestamp) {
		f.Days, f.Span = tc.Name, q.Span
	}
	e.cache.Schedule(f, e.fillBytes(q)+working)
}

// StartFills lets the fills queued so far, and every later one, run: an
// engine configured with HoldFills queues them until it is called (a
// serving process calls it once it listens). Without HoldFills it does
// nothing.
func (e *Engine) StartFills() { e.cache.StartFills() }

// Settle waits until the background fills queued so far have finished
// (or ctx ends), so the next question over their tables is served from
// the cache. Serving does not need it; tests, benchmarks and a warm-up at
// start do. Fills held until StartFills are not waited for.
func (e *Engine) Settle(ctx context.Context) error { return e.cache.Settle(ctx) }

// fillBytes is what building q's base columns in the cache would hold,
// by what its stream met (fillsize.Seen.Bytes).
func (e *Engine) fillBytes(q *query) int64 {
	if q.seen == nil {
		return 0
	}
	narrow := e.narrowSlots(q)
	slots := make([]fillsize.Slot, len(q.Base))
	for i, c := range q.Base {
		slots[i] = fillsize.Slot{Col: c, Days: i < len(q.baseWants) && q.baseWants[i].Days, Narrow: narrow[i]}
	}
	return q.seen.Bytes(slots)
}

// narrowSlots says, per base slot of q, whether its builder will keep its
// values narrow: an integer column whose every value fits 32 bits, or a
// date column (or a timestamp wanted as days) whose days span at most
// 32,767. In a Parquet file the statistics of every row group tell
// (format.IntsFit32, format.DaysFit16); in a text file, for integers,
// the batches q streamed (none widened), and for days the first and last
// day the start-up checks met in the whole read of the table's text
// files (check.Deferred.TextDays); until that read has ended, they are
// estimated wide. A table of both kinds of file is judged by both, and
// Parquet batches are 64 bits wide, so its integers are estimated wide.
func (e *Engine) narrowSlots(q *query) []bool {
	out := make([]bool, len(q.Base))
	if q.tf == nil {
		return out
	}
	for i, c := range q.Base {
		days := c.Type == domain.TypeDate || i < len(q.baseWants) && q.baseWants[i].Days
		if c.ValidOnly || c.Type != domain.TypeInteger && !days {
			continue
		}
		fit := true
		for _, p := range q.tf.Parts {
			if p.Format != files.FormatParquet {
				if days {
					fit = fit && e.textDaysFit16(q, c.Name)
				} else {
					fit = fit && q.seen != nil && !q.seen.IntsWide(i)
				}
				continue
			}
			md, err := e.footer(p)
			switch {
			case err != nil:
				fit = false
			case days:
				fit = fit && format.DaysFit16(md, c.Name)
			default:
				fit = fit && format.IntsFit32(md, c.Name)
			}
		}
		out[i] = fit
	}
	return out
}

// textDaysFit16 reports whether the days of column name of q's base
// table, over its text files, span at most 32,767, as the start-up
// checks' whole read of them found (a column that held no value fits);
// false while that read has not ended.
func (e *Engine) textDaysFit16(q *query, name string) bool {
	if q.leg == nil {
		return false
	}
	d, ok := e.deferred.TextDays(q.leg.Base.Model, name)
	return ok && int64(d.Hi)-int64(d.Lo) <= 1<<15-1
}
