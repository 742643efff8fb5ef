package inproc

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/app/wire"
	"sutura.dev/domain"
	"sutura.dev/runtime"
)

func TestNewNeedsTheSurfaceAndTheSharedBound(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{})
	other, err := runtime.NewAdmission(runtime.AdmissionConfig{})
	require.NoError(t, err)
	for name, cfg := range map[string]Config{
		"no surface":         {Admission: e.adm},
		"no bound":           {Surface: e.surface},
		"a bound of its own": {Surface: e.surface, Admission: other},
		"negative chunk":     {Surface: e.surface, Admission: e.adm, ChunkRows: -1},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := New(cfg)
			require.Error(t, err)
		})
	}
	_, err = New(Config{Surface: e.surface, Admission: e.adm, Tools: []app.Tool{{ID: "drop_tables"}}})
	require.ErrorContains(t, err, "drop_tables", "a transport never pretends to serve a tool")
}

func TestServerID(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{})
	assert.Equal(t, "sutura", e.conn.ServerID())
	e = newEnv(t, newFake(), envConfig{conn: Config{ServerID: "metrics-eu"}})
	assert.Equal(t, "metrics-eu", e.conn.ServerID())
}

// TestServesTheManifestNoMoreNoLess is the check every transport has: the
// tools served are exactly the tools the manifest declares, with the
// manifest's declarations byte for byte.
func TestServesTheManifestNoMoreNoLess(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{})
	manifest, err := wire.NewManifest(app.Tools(app.ToolOptions{}))
	require.NoError(t, err)
	var declared []string
	for _, d := range manifest.Tools {
		declared = append(declared, string(d.ID))
	}
	assert.Equal(t, declared, e.conn.ToolNames())

	want, err := json.MarshalIndent(manifest, "", "  ")
	require.NoError(t, err)
	got, err := json.MarshalIndent(e.conn.Manifest(), "", "  ")
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got), "the record `sutura tools` prints")
	decls, err := json.Marshal(e.conn.Declarations())
	require.NoError(t, err)
	wantDecls, err := json.Marshal(manifest.Tools)
	require.NoError(t, err)
	assert.Equal(t, string(wantDecls), string(decls))

	for _, name := range e.conn.ToolNames() {
		_, err := e.conn.Invoke(t.Context(), name, json.RawMessage(`{"probe":1}`))
		var ae *ArgumentError
		require.ErrorAs(t, err, &ae, "%s is served (it reads its arguments)", name)
	}
	for _, name := range []string{"run_sql", "describe_catalogue", ""} {
		_, err := e.conn.Invoke(t.Context(), name, nil)
		var ue *UnknownToolError
		require.ErrorAs(t, err, &ue, "%q is not served", name)
	}
}

func TestDeclarationsAreTheCallersCopy(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{})
	d := e.conn.Declarations()
	d[0].Description = "changed"
	d[1].InputSchema.Required[0] = "changed"
	*d[1].Annotations.DestructiveHint = true
	again := e.conn.Declarations()
	assert.NotEqual(t, "changed", again[0].Description)
	assert.Equal(t, "metrics", again[1].InputSchema.Required[0])
	assert.False(t, *again[1].Annotations.DestructiveHint)
}

func TestToolIsReadOnlyComesFromTheAnnotations(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{})
	for _, name := range e.conn.ToolNames() {
		assert.True(t, e.conn.ToolIsReadOnly(name), name)
	}
	assert.False(t, e.conn.ToolIsReadOnly("run_sql"), "a tool not served is not read-only")

	// A capability list that declared ask_metric otherwise is answered
	// otherwise: nothing is hard-coded.
	tools := app.Tools(app.ToolOptions{})
	tools[1].ReadOnly = false
	e = newEnv(t, newFake(), envConfig{conn: Config{Tools: tools}})
	assert.True(t, e.conn.ToolIsReadOnly(string(domain.DescribeCatalog)))
	assert.False(t, e.conn.ToolIsReadOnly(string(domain.AskMetric)))
	for _, d := range e.conn.Declarations() {
		assert.Equal(t, d.Annotations.ReadOnlyHint, e.conn.ToolIsReadOnly(string(d.ID)))
	}
}

func TestMeasuresRealizedCost(t *testing.T) {
	assert.True(t, newEnv(t, metered(newFake()), envConfig{}).conn.MeasuresRealizedCost())
	assert.False(t, newEnv(t, newFake(), envConfig{}).conn.MeasuresRealizedCost(), "a data system that cannot measure")
}

func TestEventBufferDefault(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{})
	assert.Equal(t, DefaultEventBuffer, e.conn.events.max)
	assert.Equal(t, DefaultChunkRows, e.conn.cfg.ChunkRows)
	assert.Equal(t, DefaultChunkBytes, e.conn.cfg.ChunkBytes)
	assert.Equal(t, 30*time.Second, e.surface.RequestTimeout())
}
