// Package semantic plants an edge its row does not allow.
package semantic

import (
	"sutura.dev/domain"
	"sutura.dev/runtime" // planted: semantic may import only domain
)

// Plan renders a question.
func Plan(q domain.Question) string { return q.Metric + runtime.Name }
