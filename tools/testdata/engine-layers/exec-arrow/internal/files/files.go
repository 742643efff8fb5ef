// Package files is the lowest layer of the fixture's engine.
package files

// Name is a file name.
func Name() string { return "orders.parquet" }
