// Command sutura plants a composition root that never builds the bound.
package main

func main() {}
