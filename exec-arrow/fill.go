package engine

import (
	"context"
	"slices"
	"sync"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/cache"
	"sutura.dev/exec-arrow/internal/column"
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
//
// A fill of a table with text files refused while the start-up checks'
// whole read of them was still to run is asked for again when it ends
// (retryFills): the days that read finds can narrow the estimate
// (narrowSlots).
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
	pending := e.deferred.Pending() && hasText(q.tf)
	if e.cache.Schedule(f, e.fillBytes(q)+working) || !pending {
		return
	}
	e.refused.mu.Lock()
	if e.deferred.Pending() {
		e.refused.remember(q, working)
		e.refused.mu.Unlock()
		return
	}
	// The read ended while the fill was estimated: estimate it again now.
	e.refused.mu.Unlock()
	e.scheduleFill(q, working)
}

// refusedFills are the streamed questions whose fill did not fit while
// the whole read of their text files was still to run: the last of each
// table and columns, the latest maxRefused of them.
type refusedFills struct {
	mu   sync.Mutex
	list []refusedFill
}

// maxRefused is the most refused fills kept for retryFills (the latest).
const maxRefused = 16

// refusedFill is a question whose fill did not fit, with the working
// memory it took: what scheduleFill reads of it, not its joined tables'
// views.
type refusedFill struct {
	q       *query
	working int64
}

// remember keeps q's refused fill, replacing one of the same table and
// columns. r.mu is held.
func (r *refusedFills) remember(q *query, working int64) {
	r.list = slices.DeleteFunc(r.list, func(f refusedFill) bool {
		return f.q.tf.ID == q.tf.ID && slices.Equal(f.q.baseWants, q.baseWants)
	})
	keep := &query{tf: q.tf, baseWants: q.baseWants, seen: q.seen, leg: q.leg}
	keep.Base, keep.TimeSlot, keep.Span = q.Base, q.TimeSlot, q.Span
	r.list = append(r.list, refusedFill{keep, working})
	if n := len(r.list); n > maxRefused {
		r.list = slices.Delete(r.list, 0, n-maxRefused)
	}
}

// retryFills asks again for the fills refused while the whole read of the
// text files was still to run (refusedFills), once it has ended.
func (e *Engine) retryFills() {
	e.refused.mu.Lock()
	list := e.refused.list
	e.refused.list = nil
	e.refused.mu.Unlock()
	for _, r := range list {
		e.scheduleFill(r.q, r.working)
	}
}

// hasText reports whether a table has a CSV or NDJSON file.
func hasText(tf *files.Table) bool {
	return slices.ContainsFunc(tf.Parts, func(p files.Part) bool { return p.Format != files.FormatParquet })
}

// StartFills lets the fills queued so far, and every later one, run: an
// engine configured with HoldFills queues them until it is called (a
// serving process calls it once its start-up checks pass, just before it
// listens). Without HoldFills it does nothing.
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
		w := format.Want{}
		if i < len(q.baseWants) {
			w = q.baseWants[i]
		}
		slots[i] = fillsize.Slot{Col: c, Days: w.Days, Narrow: narrow[i], Codes: w.Codes}
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
	return ok && column.DaysFit16(d.Lo, d.Hi)
}
