// Package runtime holds the admission bound.
package runtime

// Admission is the one concurrency bound.
type Admission struct{ n int }

// NewAdmission builds the bound.
func NewAdmission(n int) *Admission { return &Admission{n: n} }
