// Package format imports the layer above it.
package format

import (
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/kernel" // planted: format is below kernel
)

// Rows reads rows.
func Rows() int { return column.Width() + kernel.Sum() }
