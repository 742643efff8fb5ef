// Package semantic is the fixture's compiler.
package semantic

import (
	"strings"

	"sutura.dev/domain"
)

// Plan renders a question.
func Plan(q domain.Question) string { return strings.ToUpper(q.Metric) }
