package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"sutura.dev/domain"
)

// Counts agree with their nouns: "1 model", never "1 models".
func TestPlurals(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "0 models"}, {1, "1 model"}, {2, "2 models"}, {11, "11 models"}} {
		assert.Equal(t, tc.want, plural(tc.n, "model", "models"))
	}
	defs := &domain.Definitions{Models: make([]domain.Model, 1), Relationships: make([]domain.Relationship, 1), Metrics: make([]domain.Metric, 2)}
	assert.Equal(t, "loaded     1 model, 1 relationship, 2 metrics", loadedLine(defs))
}
