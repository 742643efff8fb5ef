package runtime

import (
	"context"
	"time"
)

// ReplyMargin is the part of a caller's request timeout kept back for
// writing the reply: execution gets the timeout minus this margin.
const ReplyMargin = time.Second

// ExecutionBudget returns the time execution may take within a request
// timeout: the timeout less ReplyMargin, and never less than zero.
func ExecutionBudget(requestTimeout time.Duration) time.Duration {
	if requestTimeout <= ReplyMargin {
		return 0
	}
	return requestTimeout - ReplyMargin
}

// WithExecutionDeadline derives the context execution runs under from the
// caller's context and the request timeout: it ends at the earlier of the
// caller's own deadline less ReplyMargin and now plus ExecutionBudget.
func WithExecutionDeadline(ctx context.Context, requestTimeout time.Duration) (context.Context, context.CancelFunc) {
	deadline := time.Now().Add(ExecutionBudget(requestTimeout))
	if d, ok := ctx.Deadline(); ok && d.Add(-ReplyMargin).Before(deadline) {
		deadline = d.Add(-ReplyMargin)
	}
	return context.WithDeadline(ctx, deadline)
}
