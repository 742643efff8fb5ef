// Command sutura does not build the bound at all.
package main

func main() {}
