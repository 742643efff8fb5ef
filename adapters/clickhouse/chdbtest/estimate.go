package chdbtest

// Engine returns the engine the system runs its statements on, for a test
// that asks it something else of the same data (the clickhouse adapter's
// EXPLAIN ESTIMATE, docs/contract.md §15).
func (s *System) Engine() *Engine { return s.engine }

// Escape is a query parameter's value in the engine's escaped text form,
// as Execute binds it.
func Escape(v string) string { return escape(v) }
