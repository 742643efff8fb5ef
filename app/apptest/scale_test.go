package apptest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestScaleBundlePins(t *testing.T) {
	b := ScaleBundle(t, "v1", 1000, 40)
	require.Len(t, b.Definitions().Metrics, 1000)
	require.Len(t, b.Definitions().Models, 40)
	assert.Equal(t, b.Digest(), ScaleBundle(t, "v2", 1000, 40).Digest(), "deterministic")
}
