// Package app is sutura's driving port and the ports it drives.
//
// Surface describes the catalogue, answers questions and runs run_sql;
// every transport (MCP, HTTP, in-process, the command line) calls it and
// decides nothing about what a call may do. The driven ports — the
// catalogue, data systems and the audit sink — are declared here, by their
// caller, and implemented by adapters that only the composition root
// constructs.
//
// Every call goes through one pipeline, Surface.Call: enablement and
// scope, parsing, the request timeout, an admission slot, the execution
// deadline, execution on the data system, the bounds, the classification
// of a failure and the audit record, in that order, for every capability
// and every transport. It returns one Result; a transport only decodes its
// framing into Call's arguments and encodes the Result. A refusal is an
// outcome; a Failure is a call that ended without one, with a code from
// the one failure table (failure.go) that the audit record and every
// transport share. Start-up validation (Surface.Check) runs before
// anything can answer.
//
// A question whose dimensions are read from several data systems is
// planned in legs (docs/contract.md §11): the legs run at once, each on its
// source in its posture, under the question's one slot and one deadline,
// and the Combiner port (implemented by the embedded engine) joins and
// re-aggregates their rows into the answer; Governance bounds the legs a
// plan may need, the sources it may read and the rows a leg may return.
//
// Optional abilities of the driven ports are separate interfaces found by
// type assertion: a data system may check its tables at start (Validator),
// measure what an execution took (CostReporter, reported by
// Surface.AnswerWithCost), say the posture it runs under (PostureReporter),
// run run_sql statements (SQLRunner) and check that its login role may
// serve them (SQLPrivilegeChecker); a catalogue may tell when a refresh
// swapped its bundle (CatalogNotifier, implemented by SwappableCatalog and
// relayed by Surface.Subscribe).
//
// Package sutura.dev/app/wire holds what every transport serves on top of
// the surface: the tools' wire types, generated schemas and declarations
// (the manifest) and their structured content. Package
// sutura.dev/app/conformance holds the contract suites of the driven
// ports; sutura.dev/app/apptest their fakes.
package app
