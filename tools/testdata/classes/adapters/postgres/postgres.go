// Package postgres is a data system of the fixture importing the shared
// library of its class, which the rule allows.
package postgres

import (
	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
)

// Name names a question.
func Name(q domain.Question) string { return sqlsource.Name(q) }
