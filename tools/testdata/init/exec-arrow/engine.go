// Package execarrow has an init method, which is allowed.
package execarrow

// Engine executes plans.
type Engine struct{ ready bool }

// init is a method, not an init function.
func (e *Engine) init() { e.ready = true }

// Ready reports whether the engine is ready.
func (e *Engine) Ready() bool { e.init(); return e.ready }
