// Package gen is testdata, which the go command and the rule ignore.
package gen

func init() {}
