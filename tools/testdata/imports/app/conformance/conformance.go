// Package conformance is the fixture's contract suite.
package conformance

import "sutura.dev/app"

// Run reports whether sys answers.
func Run(sys app.DataSystem) bool { return sys.Execute(struct{ Metric string }{"m"}) != "" }
