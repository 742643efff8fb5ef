package mdcatalog

import (
	"encoding/json"
	"io/fs"
	"os"
	"path"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The schemas published for authors under docs/schemas/ are the embedded
// ones, byte for byte, so they cannot drift.
func TestPublishedSchemasAreIdentical(t *testing.T) {
	published := os.DirFS("../../docs/schemas")
	embedded, err := fs.Glob(Schemas(), "*.schema.json")
	require.NoError(t, err)
	onDisk, err := fs.Glob(published, "*.schema.json")
	require.NoError(t, err)
	assert.Equal(t, embedded, onDisk, "the same schema files")
	require.Len(t, embedded, len(Kinds))
	for _, name := range embedded {
		want, err := fs.ReadFile(Schemas(), name)
		require.NoError(t, err)
		got, err := fs.ReadFile(published, name)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), "docs/schemas/%s differs from the embedded schema; copy adapters/catalog-markdown/schemas/%s over it", name, name)
	}
}

func TestSchemasCompile(t *testing.T) {
	s, err := loadSchemas()
	require.NoError(t, err)
	for _, k := range Kinds {
		sch, err := s.schema(k)
		require.NoError(t, err, k)
		assert.NotNil(t, sch, k)
	}
}

// Every object in every schema closes its keys, and every name is an
// identifier of at most 63 characters.
func TestSchemasAreClosed(t *testing.T) {
	for _, k := range Kinds {
		raw, err := fs.ReadFile(Schemas(), k+".schema.json")
		require.NoError(t, err)
		var doc map[string]any
		require.NoError(t, json.Unmarshal(raw, &doc))
		assert.Equal(t, "https://json-schema.org/draft/2020-12/schema", doc["$schema"], k)
		assert.Equal(t, schemaBase+k+".schema.json", doc["$id"], k)
		assert.Equal(t, map[string]any{"const": k}, doc["properties"].(map[string]any)["kind"], k)
		ident := doc["$defs"].(map[string]any)["identifier"]
		if ident != nil {
			assert.Equal(t, map[string]any{"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*$", "maxLength": 63.0}, ident, k)
		}
		var walk func(p string, v any)
		walk = func(p string, v any) {
			switch x := v.(type) {
			case map[string]any:
				if _, ok := x["properties"]; ok {
					assert.Equal(t, false, x["additionalProperties"], "%s%s has properties but does not close them", k, p)
				}
				if x["type"] == "object" {
					assert.Contains(t, x, "properties", "%s%s is an object schema without properties", k, p)
				}
				if pat, ok := x["pattern"].(string); ok {
					assert.Contains(t, patternReasons, pat, "%s%s: a pattern without a reason", k, p)
				}
				for key, child := range x {
					walk(path.Join(p, key), child)
				}
			case []any:
				for _, child := range x {
					walk(p+"[]", child)
				}
			}
		}
		walk("#", doc)
	}
}
