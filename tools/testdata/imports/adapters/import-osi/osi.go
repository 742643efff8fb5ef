// Package osi plants an importer that reaches past the vocabulary.
package osi

import (
	"github.com/apache/arrow-go/v18/arrow" // planted: an importer's third-party code is a YAML reader only
	"sutura.dev/domain"
	"sutura.dev/semantic" // planted: an importer may import only domain
)

// Read reads a question, and counts columns it should never see.
func Read(q domain.Question) (string, int) { return semantic.Plan(q), len(arrow.Schema{}.Fields) }
