// Package dbt plants a catalogue importing another catalogue.
package dbt

import (
	markdown "sutura.dev/adapters/catalog-markdown" // planted: both are catalogues
	"sutura.dev/domain"
)

// Import imports a question.
func Import(q domain.Question) string { return markdown.Read(q) }
