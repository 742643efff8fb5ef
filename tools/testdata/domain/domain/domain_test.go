package domain

import (
	"testing"

	"github.com/stretchr/testify/assert" // planted: not even testify
)

func TestQuestion(t *testing.T) {
	assert.True(t, Question{Metric: "m"}.Metric == "m")
}
