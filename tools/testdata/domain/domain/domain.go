// Package domain plants imports outside the standard library.
package domain

import "sutura.dev/runtime" // planted: domain imports nothing else

// Question is what a caller asks.
type Question struct{ Metric string }

// Where names the runtime.
const Where = runtime.Name
