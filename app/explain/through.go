package explain

import (
	"context"
	"sync"
	"time"

	"sutura.dev/domain"
)

// Teller is a database's ability to tell the newest day a date or
// timestamp column of a model holds with one bounded query (a max over the
// column). ok is false when the column holds no value.
type Teller interface {
	DataThrough(ctx context.Context, model, column string) (last domain.Date, ok bool, err error)
}

// Timeout bounds each Teller query.
const Timeout = 5 * time.Second

type throughKey struct{ model, column string }

// Through are the newest days read for the bundle of one digest.
type Through struct {
	digest string
	days   map[throughKey]domain.Date
}

// ReadThrough asks the Teller of each model's source (tellerOf; nil when
// it has none) for the newest day of each model and time column the
// metrics of b use, once per pair, each query bounded by Timeout. Up to
// Concurrent queries run at once, so a catalogue of many models waits
// about as long as its slowest few, not the sum of them all. What a
// database cannot tell in time is absent; only the end of ctx is an error.
func ReadThrough(ctx context.Context, b *domain.Bundle, tellerOf func(source string) Teller) (*Through, error) {
	t := &Through{digest: b.Digest(), days: map[throughKey]domain.Date{}}
	asked := map[throughKey]bool{}
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		slot = make(chan struct{}, Concurrent)
	)
	for _, m := range b.Definitions().Metrics {
		k := throughKey{m.Model, m.TimeColumn}
		model, ok := b.Model(m.Model)
		if asked[k] || !ok {
			continue
		}
		asked[k] = true
		teller := tellerOf(model.Source)
		if teller == nil {
			continue
		}
		select {
		case slot <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Go(func() {
			defer func() { <-slot }()
			qctx, cancel := context.WithTimeout(ctx, Timeout)
			defer cancel()
			if last, ok, err := teller.DataThrough(qctx, k.model, k.column); err == nil && ok {
				mu.Lock()
				t.days[k] = last
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return t, nil
}

// Concurrent is how many Teller queries ReadThrough runs at once: enough
// to overlap the round trips to a few sources, few enough to leave a
// source's connection pool room for questions.
const Concurrent = 4

// Of returns the newest day of column of model, when t was read for b.
func (t *Through) Of(b *domain.Bundle, model, column string) (domain.Date, bool) {
	if t == nil || t.digest != b.Digest() {
		return 0, false
	}
	d, ok := t.days[throughKey{model, column}]
	return d, ok
}
