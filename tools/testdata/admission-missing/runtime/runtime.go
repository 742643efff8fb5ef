// Package runtime plants a renamed constructor.
package runtime

// Bound is the one concurrency bound.
type Bound struct{ n int }

// NewBound builds the bound: planted, NewAdmission renamed.
func NewBound(n int) *Bound { return &Bound{n: n} }

// NewAdmission is a method, not the package's function.
func (b *Bound) NewAdmission() *Bound { return b }
