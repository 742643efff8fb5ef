// Package markdown is a catalogue.
package markdown

import "sutura.dev/domain"

// Read reads a question.
func Read(q domain.Question) string { return q.Metric }
