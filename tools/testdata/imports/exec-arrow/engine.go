// Package execarrow plants a module path that is not sutura.dev/<folder>.
package execarrow

// Engine executes plans.
type Engine struct{}
