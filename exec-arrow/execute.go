package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/answer"
	"sutura.dev/exec-arrow/internal/gate"
	"sutura.dev/exec-arrow/internal/kernel"
)

// Execute runs the plan's single leg over the source's files and returns
// the answer's rows (the semantics are in the package documentation).
// Refusals (result_too_large, resources_exhausted, deadline_exceeded) are
// a *domain.RefusalError; a cancelled ctx returns ctx.Err(); a ratio declared
// zero_denominator: fails with a zero denominator returns an error
// wrapping domain.ErrZeroDenominator.
func (e *Engine) Execute(ctx context.Context, plan *domain.Plan) (*domain.RowSet, error) {
	return e.execute(ctx, plan, nil)
}

// execute runs the plan, counting its work on m when m is not nil. A
// question answered from cached columns pins them; when its own working
// memory then does not fit, it is asked again streaming its files, which
// leaves the cached columns evictable: a question is never refused because
// the cache holds its columns. One refused because running questions held
// the memory it waited for (gate.Busy) is asked again when one of them
// ends, up to waitBound.
// waitBound is the longest a question refused for memory that running
// questions hold (gate.Busy) waits to be asked again.
var waitBound = 30 * time.Second

func (e *Engine) execute(ctx context.Context, plan *domain.Plan, m *kernel.Meter) (*domain.RowSet, error) {
	if plan == nil {
		return nil, fmt.Errorf("%w: no plan", domain.ErrDefect)
	}
	if ctx.Err() != nil {
		return nil, ctxErr(ctx)
	}
	if err := e.withdrawn(plan); err != nil {
		return nil, err
	}
	if p, ok := e.takePrepared(plan); ok {
		if m != nil {
			m.Rows.Add(p.rows)
			m.Bytes.Add(p.read)
			m.Cached.Add(p.cached)
			m.Loaded.Add(p.loaded)
		}
		return p.rs, p.err
	}
	if len(plan.Legs) == 1 && plan.Legs[0].Kind == domain.LegLookup {
		rs, err := e.lookup(ctx, plan, m)
		if err != nil {
			return nil, e.fail(ctx, err)
		}
		return rs, nil
	}
	deadline := time.Now().Add(waitBound)
	stream := false
	for {
		rs, cached, err := e.attempt(ctx, plan, m, stream)
		var re *domain.RefusalError
		var busy gate.Busy
		switch {
		case cached && !stream && errors.As(err, &re) && re.Reason.Code() == domain.ResourcesExhausted:
			stream = true
		case errors.As(err, &busy) && e.cache.AwaitLeave(ctx, deadline):
			// It gave back what it held; another question has ended since.
		default:
			return rs, err
		}
	}
}

// attempt runs the plan once, streaming the base table when stream is set
// or its columns are not all cached; cached reports whether they were.
func (e *Engine) attempt(ctx context.Context, plan *domain.Plan, m *kernel.Meter, stream bool) (_ *domain.RowSet, cached bool, _ error) {
	e.cache.Enter()
	defer e.cache.Leave()
	q, err := e.bind(ctx, plan, m, stream)
	if err != nil {
		var fc errFromCache
		return nil, errors.As(err, &fc), e.fail(ctx, err)
	}
	cached = !q.streamed
	answered := false
	mem := &gate.Reservation{Budget: e.cache}
	defer func() {
		// After the question has given its memory back: the fill is
		// queued only when the columns fit beside what others hold and
		// the working memory this question took.
		if answered && q.streamed {
			e.scheduleFill(q, mem.Peak)
		}
	}()
	defer q.release()
	defer mem.Done()
	src, err := e.producer(ctx, q, mem, m)
	if err != nil {
		return nil, cached, e.fail(ctx, err)
	}
	p, err := kernel.Scan(ctx, &q.Query, src, mem, m)
	finishMeter(m, q)
	if err != nil {
		return nil, cached, e.fail(ctx, err)
	}
	e.recordDays(q, src)
	defer p.Close()
	rs, err := answer.Rows(ctx, q.plan, &q.Query, p, mem)
	if err != nil {
		return nil, cached, e.fail(ctx, err)
	}
	answered = true
	return rs, cached, nil
}

// fail prefers the context's end over whatever error it caused, and gives
// every other error its kind (docs/architecture.md §6): a refusal, a zero
// denominator and a defect keep theirs; anything else — a file that can no
// longer be read, or that no longer matches its model — is the data system
// being unavailable, which asking again after the files are mended cures.
func (e *Engine) fail(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctxErr(ctx)
	}
	var re *domain.RefusalError
	switch {
	case errors.As(err, &re), errors.Is(err, domain.ErrZeroDenominator), errors.Is(err, domain.ErrDefect),
		errors.Is(err, domain.ErrUnavailable), errors.Is(err, domain.ErrRejected):
		return err
	}
	return fmt.Errorf("%w: %w", domain.ErrUnavailable, err)
}
