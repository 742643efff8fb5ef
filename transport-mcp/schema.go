package mcpserver

import (
	"fmt"
	"reflect"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"sutura.dev/app"
	"sutura.dev/domain"
)

// Schemas are the generated JSON Schemas (draft 2020-12) of one tool.
type Schemas struct {
	Input  *jsonschema.Schema
	Output *jsonschema.Schema
}

// identPattern is the identifier rule of product.md §2.
const identPattern = "^[A-Za-z_][A-Za-z0-9_]*$"

// scalarSchemas gives the named scalar wire types their constraints.
func scalarSchemas() map[reflect.Type]*jsonschema.Schema {
	ident := func() *jsonschema.Schema {
		return &jsonschema.Schema{Type: "string", Pattern: identPattern, MinLength: jsonschema.Ptr(1), MaxLength: jsonschema.Ptr(domain.MaxIdentLen)}
	}
	enum := func(vs ...string) *jsonschema.Schema {
		s := &jsonschema.Schema{Type: "string"}
		for _, v := range vs {
			s.Enum = append(s.Enum, v)
		}
		return s
	}
	constant := func(v string) *jsonschema.Schema {
		return &jsonschema.Schema{Type: "string", Const: jsonschema.Ptr[any](v)}
	}
	grains := make([]string, len(domain.Grains))
	for i, g := range domain.Grains {
		grains[i] = g.String()
	}
	codes := make([]string, 0, len(domain.Codes()))
	for _, c := range domain.Codes() {
		codes = append(codes, string(c))
	}
	return map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[MetricName]():     ident(),
		reflect.TypeFor[DimensionName]():  ident(),
		reflect.TypeFor[DimensionValue](): {Type: "string", MinLength: jsonschema.Ptr(1), MaxLength: jsonschema.Ptr(domain.MaxValueLen)},
		reflect.TypeFor[Grain]():          enum(grains...),
		reflect.TypeFor[domain.Grain]():   enum(grains...),
		reflect.TypeFor[Date]():           {Type: "string", Format: "date", Pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
		reflect.TypeFor[Count]():          {Type: "integer", Minimum: jsonschema.Ptr(1.0)},
		reflect.TypeFor[TopN]():           {Type: "integer", Minimum: jsonschema.Ptr(1.0), Maximum: jsonschema.Ptr(float64(domain.MaxRowCap))},
		reflect.TypeFor[EqOp]():           constant(string(domain.OpEq)),
		reflect.TypeFor[ListOp]():         enum(string(domain.OpIn), string(domain.OpNotIn)),
		reflect.TypeFor[TopBy]():          enum(string(domain.ByMetric), string(domain.ByPeriod)),
		reflect.TypeFor[Direction]():      enum("desc", "asc"),
		reflect.TypeFor[answerTag]():      constant("answer"),
		reflect.TypeFor[refusalTag]():     constant("refusal"),
		reflect.TypeFor[domain.Code]():    enum(codes...),
		reflect.TypeFor[domain.Posture](): enum(string(domain.SharedServiceUser), string(domain.ImpersonationAtSource)),
		reflect.TypeFor[domain.Cell]():    {Types: []string{"string", "null"}},
	}
}

// infer generates the schema of T with the given type schemas.
func infer[T any](types map[reflect.Type]*jsonschema.Schema) (*jsonschema.Schema, error) {
	return jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: types})
}

// oneOf is an object schema that admits exactly one of variants.
func oneOf(variants ...*jsonschema.Schema) *jsonschema.Schema {
	return &jsonschema.Schema{Type: "object", OneOf: variants}
}

// tighten walks s and closes every object that declares its properties
// (additionalProperties: false), and drops the "null" that inference adds
// to optional lists and objects: the parser accepts an absent field, never
// a null one.
func tighten(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && s.Types[0] == "null" && (s.Types[1] == "array" || s.Types[1] == "object") {
		s.Type, s.Types = s.Types[1], nil
	}
	if s.Type == "object" && len(s.OneOf) == 0 && s.AdditionalProperties == nil {
		s.AdditionalProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}}
	}
	for _, c := range s.Properties {
		tighten(c)
	}
	tighten(s.Items)
	for _, c := range s.OneOf {
		tighten(c)
	}
}

func items(s *jsonschema.Schema, minItems, maxItems int) {
	if minItems > 0 {
		s.MinItems = jsonschema.Ptr(minItems)
	}
	s.MaxItems = jsonschema.Ptr(maxItems)
}

// generateSchemas builds the schemas of every tool this package serves.
func generateSchemas() (map[domain.Capability]Schemas, error) {
	types := scalarSchemas()
	fixed, err := infer[FixedRange](types)
	if err != nil {
		return nil, err
	}
	fixed.Description = "Explicit dates: the range holds start and runs up to, not including, end."
	relative, err := infer[RelativeRange](types)
	if err != nil {
		return nil, err
	}
	relative.Description = "Relative: the last count buckets of unit before the current one, on the server's clock."
	eq, err := infer[EqFilter](types)
	if err != nil {
		return nil, err
	}
	list, err := infer[ListFilter](types)
	if err != nil {
		return nil, err
	}
	items(list.Properties["values"], 1, domain.MaxFilterValues)
	types[reflect.TypeFor[TimeRange]()] = oneOf(fixed, relative)
	types[reflect.TypeFor[Filter]()] = oneOf(eq, list)

	ask, err := infer[AskMetricArgs](types)
	if err != nil {
		return nil, err
	}
	items(ask.Properties["metrics"], 1, domain.MaxMetrics)
	items(ask.Properties["dimensions"], 0, domain.MaxDimensions)
	items(ask.Properties["filters"], 0, domain.MaxFilters)
	tighten(ask)

	describe, err := infer[DescribeCatalogArgs](types)
	if err != nil {
		return nil, err
	}
	tighten(describe)

	answer, err := infer[answerBody](types)
	if err != nil {
		return nil, err
	}
	answer.Description = "An answer: rows with their provenance."
	answer.Properties["columns"].Items.Properties["role"].Enum = []any{domain.RoleDimension, domain.RolePeriod, domain.RoleMetric}
	refusal, err := infer[refusalBody](types)
	if err != nil {
		return nil, err
	}
	refusal.Description = "A refusal: the question may not be asked, with a stable code."
	outcome := oneOf(answer, refusal)
	tighten(outcome)

	types[reflect.TypeFor[domain.Question]()] = ask
	catalog, err := infer[app.CatalogView](types)
	if err != nil {
		return nil, err
	}
	catalog.Description = "The catalogue as this caller may see it."
	tighten(catalog)

	return map[domain.Capability]Schemas{
		domain.DescribeCatalog: {Input: describe, Output: catalog},
		domain.AskMetric:       {Input: ask, Output: outcome},
	}, nil
}

var schemas = sync.OnceValues(generateSchemas)

// ToolSchemas returns the generated schemas of the tool id, or an error when
// this package cannot serve it.
func ToolSchemas(id domain.Capability) (Schemas, error) {
	all, err := schemas()
	if err != nil {
		return Schemas{}, fmt.Errorf("mcpserver: generating schemas: %w", err)
	}
	s, ok := all[id]
	if !ok {
		return Schemas{}, fmt.Errorf("mcpserver: tool %s is declared but this build cannot serve it yet", id)
	}
	return s, nil
}

// Declaration is one tool as the manifest records it and as every transport
// must serve it.
type Declaration struct {
	ID           domain.Capability   `json:"id"`
	Title        string              `json:"title"`
	Description  string              `json:"description"`
	Scope        domain.Scope        `json:"scope"`
	InputSchema  *jsonschema.Schema  `json:"input_schema"`
	OutputSchema *jsonschema.Schema  `json:"output_schema"`
	Annotations  mcp.ToolAnnotations `json:"annotations"`
}

// Manifest is the durable record of the tool declarations (`sutura tools`).
type Manifest struct {
	Version int           `json:"manifest_version"`
	Tools   []Declaration `json:"tools"`
}

// NewManifest declares tools (from app.Tools) with their generated schemas
// and annotations. It opens nothing. It fails for a tool this package cannot
// serve (run_sql, until it has a handler).
func NewManifest(tools []app.Tool) (Manifest, error) {
	m := Manifest{Version: app.ManifestVersion, Tools: []Declaration{}}
	for _, t := range tools {
		s, err := ToolSchemas(t.ID)
		if err != nil {
			return Manifest{}, err
		}
		m.Tools = append(m.Tools, Declaration{
			ID: t.ID, Title: t.Title, Description: t.Description, Scope: t.Scope,
			InputSchema: s.Input, OutputSchema: s.Output, Annotations: annotations(t),
		})
	}
	return m, nil
}

// annotations are the MCP hints of t.
func annotations(t app.Tool) mcp.ToolAnnotations {
	return mcp.ToolAnnotations{
		Title:           t.Title,
		ReadOnlyHint:    t.ReadOnly,
		DestructiveHint: jsonschema.Ptr(t.Destructive),
		IdempotentHint:  t.Idempotent,
		OpenWorldHint:   jsonschema.Ptr(t.OpenWorld),
	}
}
