package explain

import (
	"context"
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
// metrics of b use, once per pair, each query bounded by Timeout. What a
// database cannot tell in time is absent; only the end of ctx is an error.
func ReadThrough(ctx context.Context, b *domain.Bundle, tellerOf func(source string) Teller) (*Through, error) {
	t := &Through{digest: b.Digest(), days: map[throughKey]domain.Date{}}
	asked := map[throughKey]bool{}
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
		qctx, cancel := context.WithTimeout(ctx, Timeout)
		last, ok, err := teller.DataThrough(qctx, m.Model, m.TimeColumn)
		cancel()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err == nil && ok {
			t.days[k] = last
		}
	}
	return t, nil
}

// Of returns the newest day of column of model, when t was read for b.
func (t *Through) Of(b *domain.Bundle, model, column string) (domain.Date, bool) {
	if t == nil || t.digest != b.Digest() {
		return 0, false
	}
	d, ok := t.days[throughKey{model, column}]
	return d, ok
}
