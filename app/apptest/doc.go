// Package apptest holds hand-written, in-memory fakes of the driven ports
// that package app declares (docs/architecture.md §6), and the small demo-like
// bundle the tests of app and of the transports share. It is test support:
// only tests import it, and it takes a testing.TB where a failure can only
// be the test's own.
//
// The fakes are safe for concurrent use once configured: set a System's
// fields before its first execution, and change an Audit's failure with
// Audit.Fail.
package apptest
