// Package app dot-imports the runtime and builds a bound: planted.
package app

import . "sutura.dev/runtime"

// Bound is the app's own bound.
var Bound = NewAdmission(2)
