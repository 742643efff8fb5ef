// Package sqlsource plants a shared library of the data systems importing
// one of them.
package sqlsource

import (
	"sutura.dev/adapters/duckdb" // planted: a shared library imports no member
	"sutura.dev/domain"
)

// Name names a question.
func Name(q domain.Question) string { return duckdb.Name(q) }
