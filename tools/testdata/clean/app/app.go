// Package app is the fixture's ports.
package app

import (
	"sutura.dev/domain"
	"sutura.dev/runtime"
	"sutura.dev/semantic"
)

// Surface answers questions.
type Surface struct{ adm *runtime.Admission }

// NewSurface returns a surface that admits through adm.
func NewSurface(adm *runtime.Admission) *Surface { return &Surface{adm: adm} }

// Answer answers q.
func (s *Surface) Answer(q domain.Question) string {
	if !s.adm.Admit(q) {
		return ""
	}
	return semantic.Plan(q)
}
