// Command sutura builds the bound.
package main

import "sutura.dev/runtime"

func main() { _ = runtime.NewAdmission(8) }
