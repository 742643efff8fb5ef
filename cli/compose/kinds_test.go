package compose

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"sutura.dev/cli/internal/config"
)

// TestEveryKindIsServed: every kind of source the configuration accepts
// has a row in sourceKinds (docs/contract.md §9): none is refused at
// start for want of an adapter.
func TestEveryKindIsServed(t *testing.T) {
	for _, k := range config.SourceKinds() {
		_, served := sourceKinds[k]
		assert.True(t, served, "kind %s has no row in sourceKinds", k)
	}
}
