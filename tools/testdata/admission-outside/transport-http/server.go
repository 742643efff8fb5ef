// Package http builds a bound under an alias: planted.
package http

import adm "sutura.dev/runtime"

// Bound is the transport's own bound.
var Bound = adm.NewAdmission(4)
