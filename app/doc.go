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
package app
