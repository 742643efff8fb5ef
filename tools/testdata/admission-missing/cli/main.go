// Command sutura builds the bound once.
package main

import rt "sutura.dev/runtime"

func main() { _ = rt.NewBound(8) }
