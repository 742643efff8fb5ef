package semantic_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"sutura.dev/domain"
	"sutura.dev/semantic"
)

func TestPlan(t *testing.T) {
	assert.True(t, semantic.Plan(domain.Question{Metric: "m"}) == "M")
}
