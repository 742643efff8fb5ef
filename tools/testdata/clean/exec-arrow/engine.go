// Package execarrow is the fixture's embedded engine.
package execarrow

import (
	"github.com/apache/arrow-go/v18/arrow"
	"sutura.dev/domain"
)

// Engine executes questions.
type Engine struct{ schema arrow.Schema }

// Columns returns the columns q reads.
func (e *Engine) Columns(q domain.Question) []string { return append(e.schema.Fields, q.Metric) }
