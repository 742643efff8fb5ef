// Package main is testdata, which the rule ignores.
package main

import "sutura.dev/runtime"

func main() { _ = runtime.NewAdmission(1) }
