// Package execarrow is the fixture's engine: its root may import every
// layer below it.
package execarrow

import "sutura.dev/exec-arrow/internal/kernel"

// Run runs the kernel.
func Run() int { return kernel.Sum() }
