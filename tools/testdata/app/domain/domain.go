// Package domain is the fixture's vocabulary.
package domain

// Question is what a caller asks.
type Question struct{ Metric string }
