// Package osi plants an importer that reaches past the vocabulary.
package osi

import (
	"github.com/apache/arrow-go/v18/arrow" // planted: an importer's third-party code is a YAML reader only
	"sutura.dev/adapters/importread"       // allowed: the importers' own YAML reader
	"sutura.dev/domain"
	"sutura.dev/semantic" // planted: an importer may import only domain and the YAML reader
)

// Read reads a question, and counts columns it should never see.
func Read(q domain.Question) (string, int) {
	_, n := importread.Node(q)
	return semantic.Plan(q), n + len(arrow.Schema{}.Fields)
}
