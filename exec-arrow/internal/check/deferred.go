package check

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/files"
)

// Deferred is a source's deferred checks: the text parts of each model
// that start-up only sampled (Table), and the models whose whole read
// (Run) then failed, each withdrawn with its failure. The zero value holds
// nothing; it is safe for concurrent use.
type Deferred struct {
	mu        sync.Mutex
	parts     map[string][]files.Part
	withdrawn map[string]error
	done      bool
	// days are each model's date and timestamp days over its text parts
	// (Table, then Run); known marks the models whose every text part
	// was read whole.
	days  map[string]map[string]Days
	known map[string]bool
}

// Defer records what Table returned for model: the parts whose whole read
// is deferred, and the days of the text parts it read whole.
func (d *Deferred) Defer(model string, parts []files.Part, days map[string]Days, known bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.parts == nil {
		d.parts, d.days, d.known = map[string][]files.Part{}, map[string]map[string]Days{}, map[string]bool{}
	}
	d.days[model], d.known[model] = days, known
	if len(parts) > 0 {
		d.parts[model] = parts
	}
}

// TextDays returns the first and last day column of model holds over its
// text parts, when every one of them was read whole (ok); Lo > Hi when
// they hold no value.
func (d *Deferred) TextDays(model, column string) (days Days, ok bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.known[model] {
		return Days{}, false
	}
	if days, held := d.days[model][column]; held {
		return days, true
	}
	return noDays, true
}

// Pending reports whether a deferred read is still to run.
func (d *Deferred) Pending() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.parts) > 0 && !d.done
}

// Run reads every deferred part whole (Whole), in model order, once; a
// model whose read fails is withdrawn with that failure. It returns the
// failures joined. Only the end of ctx stops it early, and then nothing
// is withdrawn and a later Run reads again.
func (d *Deferred) Run(ctx context.Context, cfg Config, models map[string]*domain.Model) error {
	d.mu.Lock()
	todo := maps.Clone(d.parts)
	d.mu.Unlock()
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(todo)) {
		days, err := Whole(ctx, cfg, models[name], todo[name])
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err == nil {
			d.mu.Lock()
			merge(d.days[name], days)
			d.known[name] = true
			d.mu.Unlock()
		}
		if err != nil {
			d.mu.Lock()
			if d.withdrawn == nil {
				d.withdrawn = map[string]error{}
			}
			d.withdrawn[name] = err
			d.mu.Unlock()
			errs = append(errs, err)
		}
	}
	d.mu.Lock()
	d.done = true
	d.mu.Unlock()
	return errors.Join(errs...)
}

// Of returns the failure of the first of models (in the order given) that
// is withdrawn, or nil.
func (d *Deferred) Of(models ...string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, m := range models {
		if err := d.withdrawn[m]; err != nil {
			return err
		}
	}
	return nil
}

// Err returns every withdrawn model's failure joined, in model order, or
// nil when none is withdrawn.
func (d *Deferred) Err() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	var errs []error
	for _, m := range slices.Sorted(maps.Keys(d.withdrawn)) {
		errs = append(errs, d.withdrawn[m])
	}
	return errors.Join(errs...)
}
