// Package column is a middle layer: importing files, below it, is allowed.
package column

import "sutura.dev/exec-arrow/internal/files"

// Width is the width of a column of the file.
func Width() int { return len(files.Name()) }
