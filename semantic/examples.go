package semantic

import (
	"errors"
	"fmt"

	"sutura.dev/domain"
)

// ExampleError says a catalogue example's question is one the server
// would refuse: an agent that copies it would be told no. Code and Detail
// are the refusal's; the example's values are catalogue text, not a
// caller's, so the detail may name them.
type ExampleError struct {
	Example string
	Code    domain.Code
	Detail  string
}

func (e *ExampleError) Error() string {
	return fmt.Sprintf("example %s: its question is refused (%s): %s", e.Example, e.Code, e.Detail)
}

// CheckExamples compiles the question of every example of b's knowledge
// with this compiler — resolution and planning, under the deployment's
// ceilings c — as the local operator (who sees every metric), with today
// for relative ranges, and returns an *ExampleError for each one that is
// refused, joined; nil when every example would be answered as far as
// the compiler can tell (execution may still refuse, as for any
// question). It is part of the start-up validation, because an example's
// meaning depends on the whole bundle and on planning, which the
// vocabulary's own consistency check cannot see.
func CheckExamples(b *domain.Bundle, today domain.Date, c Ceilings) error {
	var errs []error
	for _, e := range b.Knowledge().Examples {
		if _, why := CompileWith(b, domain.LocalOperator, e.Question, today, c); why != nil {
			errs = append(errs, &ExampleError{Example: e.Name, Code: why.Code(), Detail: why.Detail()})
		}
	}
	return errors.Join(errs...)
}
