// Package conformance is the fixture's contract suite, which adapters'
// tests may import.
package conformance

import "sutura.dev/domain"

// Run reports whether columns names a column for a question.
func Run(columns func(domain.Question) []string) bool { return len(columns(domain.Question{})) > 0 }
