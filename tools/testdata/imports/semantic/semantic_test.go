package semantic_test

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow" // planted: not allowed in tests either
	"github.com/stretchr/testify/assert"   // allowed in tests
	"sutura.dev/domain"
	"sutura.dev/semantic"
)

func TestPlan(t *testing.T) {
	assert.True(t, semantic.Plan(domain.Question{Metric: "m"}) != "" && arrow.Schema{}.Fields == nil)
}
