// Package widgets plants a module of go.work without a rule.
package widgets
