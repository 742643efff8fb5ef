// Package http is the fixture's HTTP transport.
package http

import (
	"sutura.dev/app"
	"sutura.dev/domain"
	"sutura.dev/runtime"
)

// Server serves a surface.
type Server struct {
	Surface *app.Surface
	Bound   *runtime.Admission
}

// Handle answers metric.
func (s *Server) Handle(metric string) string {
	return s.Surface.Answer(domain.Question{Metric: metric})
}
