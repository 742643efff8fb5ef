package mcpserver

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/app/apptest"
	"sutura.dev/app/wire"
	"sutura.dev/domain"
)

// TestStructuredContentIsTheSharedRendering: the structured content this
// server returns is, byte for byte, what package wire renders for the same
// outcome, which is what every other transport returns (the in-process
// connection's tests check their side against the same function).
func TestStructuredContentIsTheSharedRendering(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{})
	caller := app.Caller{Principal: domain.LocalOperator, CorrelationID: "c-1"}
	for name, args := range map[string]json.RawMessage{"answer": qAnswer, "refusal": qRefusal} {
		t.Run(name, func(t *testing.T) {
			res, err := encode(e.surface.Call(context.Background(), caller, domain.AskMetric, args))
			require.NoError(t, err)
			got, ok := res.StructuredContent.(json.RawMessage)
			require.True(t, ok, "structured content is passed to the SDK as bytes")

			q, err := domain.ParseQuestion(args)
			require.NoError(t, err)
			out, err := e.surface.Answer(context.Background(), caller, q)
			require.NoError(t, err)
			want, err := wire.OutcomeContent(out)
			require.NoError(t, err)
			assert.Equal(t, apptest.Steady(want), apptest.Steady(got))

			over := call(t, e.connect(t), "ask_metric", args)
			assert.JSONEq(t, apptest.Steady(want), apptest.Steady(mustJSON(t, over.StructuredContent)), "and so it reaches a client")
		})
	}
	t.Run("describe_catalog", func(t *testing.T) {
		res, err := encode(e.surface.Call(context.Background(), caller, domain.DescribeCatalog, json.RawMessage(`{}`)))
		require.NoError(t, err)
		want, err := wire.CatalogContent(e.surface.DescribeCatalog(caller))
		require.NoError(t, err)
		assert.Equal(t, string(want), string(res.StructuredContent.(json.RawMessage)))
	})
}

// TestServedToolsAreTheManifestBytes: each tool the server lists marshals
// its schemas and annotations to exactly the manifest's bytes.
func TestServedToolsAreTheManifestBytes(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{})
	res, err := e.connect(t).ListTools(context.Background(), nil)
	require.NoError(t, err)
	m, err := wire.NewManifest(app.Tools(app.ToolOptions{}))
	require.NoError(t, err)
	served := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		served[tool.Name] = tool
	}
	for _, d := range m.Tools {
		s, err := ToolSchemas(d.ID)
		require.NoError(t, err)
		assert.Equal(t, string(mustJSON(t, d.InputSchema)), string(mustJSON(t, s.Input)), "%s input", d.ID)
		assert.Equal(t, string(mustJSON(t, d.OutputSchema)), string(mustJSON(t, s.Output)), "%s output", d.ID)
		assert.Equal(t, string(mustJSON(t, d.Annotations)), string(mustJSON(t, served[string(d.ID)].Annotations)), "%s annotations", d.ID)
	}
}
