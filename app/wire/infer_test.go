package wire

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type inner struct {
	A string `json:"a" jsonschema:"An a."`
}

type sample struct {
	Name     string   `json:"name" jsonschema:"The name."`
	Count    int      `json:"count,omitempty"`
	Flag     bool     `json:"flag,omitzero"`
	Tags     []string `json:"tags"`
	Inner    *inner   `json:"inner,omitempty"`
	Skipped  string   `json:"-"`
	Untagged int64
	hidden   string // unexported: not a wire field
}

func TestInferStructs(t *testing.T) {
	s, err := infer(reflect.TypeFor[sample](), nil)
	require.NoError(t, err)
	b, err := json.Marshal(s)
	require.NoError(t, err)
	assert.Equal(t, `{"type":"object","properties":{`+
		`"name":{"type":"string","description":"The name."},`+
		`"count":{"type":"integer"},`+
		`"flag":{"type":"boolean"},`+
		`"tags":{"type":"array","items":{"type":"string"}},`+
		`"inner":{"type":"object","properties":{"a":{"type":"string","description":"An a."}},"required":["a"],"additionalProperties":false},`+
		`"Untagged":{"type":"integer"}},`+
		`"required":["name","tags","Untagged"],"additionalProperties":false}`, string(b),
		"properties in field order; omitempty and omitzero are optional; a pointer to a struct is the struct, never null")
}

func TestInferUsesTypeSchemasAsCopies(t *testing.T) {
	shared := &Schema{Type: "string", Enum: []string{"x"}}
	types := map[reflect.Type]*Schema{reflect.TypeFor[string](): shared}
	s, err := infer(reflect.TypeFor[inner](), types)
	require.NoError(t, err)
	assert.Equal(t, "An a.", s.Property("a").Description)
	assert.Empty(t, shared.Description, "the description lands on a copy")
}

func TestInferRefusesWhatItWouldHaveToGuess(t *testing.T) {
	type embedded struct{ inner }
	type cyclic struct {
		Next []cyclic `json:"next"`
	}
	for name, typ := range map[string]reflect.Type{
		"map":               reflect.TypeFor[map[string]string](),
		"interface":         reflect.TypeFor[struct{ X any }](),
		"float32":           reflect.TypeFor[float32](),
		"pointer to scalar": reflect.TypeFor[struct{ X *string }](),
		"embedded":          reflect.TypeFor[embedded](),
		"cycle":             reflect.TypeFor[cyclic](),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := infer(typ, nil)
			require.Error(t, err)
		})
	}
}

func TestSchemaMarshalling(t *testing.T) {
	b, err := json.Marshal(&Schema{})
	require.NoError(t, err)
	assert.Equal(t, "true", string(b), "the empty schema admits everything")
	b, err = json.Marshal(Schema{Types: []string{"string", "null"}, Const: ptr("a"), Minimum: ptr(1.0), MaxLength: ptr(3), Format: "date",
		OneOf: []*Schema{{Type: "object", Properties: []Property{}}}})
	require.NoError(t, err)
	assert.Equal(t, `{"type":["string","null"],"const":"a","minimum":1,"maxLength":3,"oneOf":[{"type":"object","properties":{}}],"format":"date"}`, string(b))
}

func TestCloneIsDeep(t *testing.T) {
	s, err := inferFor[sample](nil)
	require.NoError(t, err)
	c := s.Clone()
	require.Equal(t, s, c)
	c.Property("inner").Property("a").Description = "changed"
	c.Required[0] = "changed"
	assert.Equal(t, "An a.", s.Property("inner").Property("a").Description)
	assert.Equal(t, "name", s.Required[0])
	assert.Nil(t, (*Schema)(nil).Clone())
	assert.Nil(t, s.Property("absent"))
}
