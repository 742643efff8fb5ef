// Package semantic is sutura's compiler: it resolves a question against a
// pinned bundle, plans it onto data systems and renders a plan to SQL for
// each dialect.
//
// The compiler arrives with the engine; until then this package holds no
// code, so nothing can depend on behaviour that does not exist yet.
package semantic
