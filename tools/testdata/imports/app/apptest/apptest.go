// Package apptest is the fixture's fakes.
package apptest

import "sutura.dev/domain"

// Question is a question the tests ask.
var Question = domain.Question{Metric: "m"}
