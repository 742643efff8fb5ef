// Package app is sutura's driving port and the ports it drives.
//
// Surface describes the catalogue and answers questions; every transport
// (MCP, HTTP, in-process, the command line) calls it and decides nothing
// about what a question may ask. The driven ports — the catalogue, data
// systems and the audit sink — are declared here, by their caller, and
// implemented by adapters that only the composition root constructs.
//
// The flow of one question: resolve and plan against the pinned bundle
// (package semantic), take an admission slot, execute the leg on its data
// system under the execution deadline, apply the bounds, write the audit
// record, return the outcome. A refusal is an outcome; errors are failures
// of the service (at capacity, out of time, a data system that failed).
//
// Optional abilities of the driven ports are separate interfaces found by
// type assertion: a data system may check its tables at start (Validator)
// and measure what an execution took (CostReporter, reported by
// Surface.AnswerWithCost); a catalogue may tell when a refresh swapped its
// bundle (CatalogNotifier, implemented by SwappableCatalog and relayed by
// Surface.Subscribe).
//
// Package sutura.dev/app/wire holds what every transport serves on top of
// the surface: the tools' wire types, generated schemas and declarations
// (the manifest), their structured content and the failure sentences.
package app
