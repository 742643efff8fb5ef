package main

import (
	"context"
	"errors"

	"sutura.dev/domain"
	engine "sutura.dev/exec-arrow"
)

// filesSystem adapts the embedded engine to app.DataSystem, translating
// its execution refusals and failures into the domain's.
type filesSystem struct{ e *engine.Engine }

func (f filesSystem) Execute(ctx context.Context, plan *domain.Plan) (*domain.RowSet, error) {
	rs, err := f.e.Execute(ctx, plan)
	var re *engine.RefusalError
	switch {
	case err == nil:
		return rs, nil
	case errors.As(err, &re):
		return nil, &domain.RefusalError{Reason: re.Reason}
	case errors.Is(err, engine.ErrZeroDenominator):
		return nil, errors.Join(domain.ErrZeroDenominator, err)
	}
	return nil, err
}
