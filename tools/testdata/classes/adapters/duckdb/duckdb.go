// Package duckdb is a data system of the fixture.
package duckdb

import "sutura.dev/domain"

// Name names a question.
func Name(q domain.Question) string { return q.Metric }
