package sqlsource

import (
	"context"
	"errors"
	"fmt"
	"time"

	"sutura.dev/domain"
	"sutura.dev/semantic"
)

// Leg checks that plan has a leg and that it reads source, the one the
// adapter of system serves: a plan of another source is not executed.
func Leg(system, source string, plan *domain.Plan) error {
	if plan == nil || len(plan.Legs) == 0 {
		return errors.New(system + ": no plan")
	}
	if src := plan.Legs[0].Source; src != source {
		return fmt.Errorf("%s source %s: the plan reads source %s", system, source, src)
	}
	return nil
}

// Render checks plan with Leg and renders it in dialect, with its
// parameters as positional arguments, ending with the traceparent comment
// of ctx (TraceComment).
func Render(ctx context.Context, system, source string, plan *domain.Plan, dialect semantic.Dialect) (string, []any, error) {
	if err := Leg(system, source, plan); err != nil {
		return "", nil, err
	}
	st, err := semantic.Render(plan, dialect)
	if err != nil {
		return "", nil, fmt.Errorf("%s source %s: %w", system, source, err)
	}
	args, err := st.PositionalArgs()
	if err != nil {
		return "", nil, fmt.Errorf("%s source %s: %w", system, source, err)
	}
	return st.SQL + TraceComment(ctx), args, nil
}

// Budget gives ctx the deadline timeout from now when it has none; the
// returned function releases the context's resources either way.
func Budget(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, timeout)
}
