package engine_test

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"sutura.dev/app/conformance"
	engine "sutura.dev/exec-arrow"
)

// TestConformance runs the data-system contract suite (app/conformance)
// against the engine over the demo files, from this module: every answer,
// cell and refusal must match the corpus DuckDB computed from the same
// files.
func TestConformance(t *testing.T) {
	const source = "demo"
	e, err := engine.New(context.Background(), engine.Config{Source: source,
		Files: os.DirFS("../examples/demo/data"), Models: conformance.DemoDefinitions(source).Models})
	require.NoError(t, err)
	require.NoError(t, e.Validate(context.Background()), "the demo files hold every declared column")
	conformance.RunSystem(t, e, source)
}
