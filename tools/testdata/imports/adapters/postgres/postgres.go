// Package postgres plants a contract suite imported by an adapter's code,
// where only its tests may import it.
package postgres

import (
	"sutura.dev/app/conformance"
	"sutura.dev/domain"
)

// DB executes questions.
type DB struct{}

// Execute answers q.
func (DB) Execute(q domain.Question) string { return q.Metric }

// SelfCheck runs the suite from the adapter's code.
func SelfCheck() bool { return conformance.Run(DB{}) }
