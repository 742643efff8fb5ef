// Package markdown is the fixture's catalogue reader.
package markdown

import (
	"sutura.dev/domain"
	"sutura.dev/semantic"
)

// Reader reads definitions.
type Reader struct{ read bool }

// init is a method, not an init function: the no-init rule allows it.
func (r *Reader) init() { r.read = true }

// Read returns the plan of q.
func (r *Reader) Read(q domain.Question) string {
	r.init()
	return semantic.Plan(q)
}
