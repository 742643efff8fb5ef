// Package arrow stands in for Arrow's, so the fixture needs no network.
package arrow

// Schema describes the columns of a record.
type Schema struct{ Fields []string }
