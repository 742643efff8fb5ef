// Package kernel is the layer under the root.
package kernel

import "sutura.dev/exec-arrow/internal/column"

// Sum sums.
func Sum() int { return column.Width() }
