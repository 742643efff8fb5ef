package format

import (
	"fmt"
	"runtime/debug"

	"sutura.dev/domain"
)

// Guard runs f, a function of a goroutine the engine starts, and turns a
// panic in it into an error wrapping domain.ErrDefect with the panic's
// value and stack. A panic in a goroutine of its own cannot be recovered
// by the caller: unguarded, it would end the process and every transport
// with it; guarded, the question fails as an internal failure and serving
// goes on.
func Guard(f func() error) func() error {
	return func() (err error) {
		defer func() {
			if v := recover(); v != nil {
				err = fmt.Errorf("%w: an engine worker panicked: %v\n%s", domain.ErrDefect, v, debug.Stack())
			}
		}()
		return f()
	}
}
