// Package runtime is the fixture's admission bound.
package runtime

import "sutura.dev/domain"

// Admission is the one concurrency bound.
type Admission struct{ slots chan struct{} }

// NewAdmission builds the bound; cli calls it once.
func NewAdmission(n int) *Admission { return &Admission{slots: make(chan struct{}, n)} }

// Admit takes a slot for q if one is free.
func (a *Admission) Admit(q domain.Question) bool {
	select {
	case a.slots <- struct{}{}:
		return q.Metric != ""
	default:
		return false
	}
}
