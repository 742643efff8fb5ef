// Package semantic is sutura's compiler: it resolves a question against a
// pinned bundle in the order of product.md §3.2, plans it onto data systems
// and renders a plan to SQL for each dialect with every value bound as a
// parameter.
package semantic
