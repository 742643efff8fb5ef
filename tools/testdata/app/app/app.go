// Package app plants an import of an adapter.
package app

import (
	markdown "sutura.dev/adapters/catalog-markdown" // planted: app imports no adapter
	"sutura.dev/domain"
)

// Answer answers q.
func Answer(q domain.Question) string { return markdown.Read(q) }
