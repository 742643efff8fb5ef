// Package app is the fixture's ports.
package app

import "sutura.dev/domain"

// DataSystem executes questions.
type DataSystem interface {
	Execute(q domain.Question) string
}
