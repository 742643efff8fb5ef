package wire

import (
	"fmt"
	"reflect"
	"sync"

	"sutura.dev/app"
	"sutura.dev/domain"
)

// Schemas are the generated JSON Schemas (draft 2020-12) of one tool.
type Schemas struct {
	Input  *Schema
	Output *Schema
}

// identPattern is the identifier rule of docs/contract.md §2.
const identPattern = "^[A-Za-z_][A-Za-z0-9_]*$"

func ptr[T any](v T) *T { return &v }

// scalarSchemas gives the named scalar wire types (and the domain types the
// results carry) their constraints.
func scalarSchemas() map[reflect.Type]*Schema {
	ident := func() *Schema {
		return &Schema{Type: "string", Pattern: identPattern, MinLength: ptr(1), MaxLength: ptr(domain.MaxIdentLen)}
	}
	enum := func(vs ...string) *Schema { return &Schema{Type: "string", Enum: vs} }
	constant := func(v string) *Schema { return &Schema{Type: "string", Const: ptr(v)} }
	grains := make([]string, len(domain.Grains))
	for i, g := range domain.Grains {
		grains[i] = g.String()
	}
	codes := make([]string, 0, len(domain.Codes()))
	for _, c := range domain.Codes() {
		codes = append(codes, string(c))
	}
	return map[reflect.Type]*Schema{
		reflect.TypeFor[MetricName]():     ident(),
		reflect.TypeFor[DimensionName]():  ident(),
		reflect.TypeFor[DimensionValue](): {Type: "string", MinLength: ptr(1), MaxLength: ptr(domain.MaxValueLen)},
		reflect.TypeFor[Grain]():          enum(grains...),
		reflect.TypeFor[domain.Grain]():   enum(grains...),
		reflect.TypeFor[Date]():           {Type: "string", Format: "date", Pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
		reflect.TypeFor[Count]():          {Type: "integer", Minimum: ptr(1.0)},
		reflect.TypeFor[TopN]():           {Type: "integer", Minimum: ptr(1.0), Maximum: ptr(float64(domain.MaxRowCap))},
		reflect.TypeFor[EqOp]():           constant(string(domain.OpEq)),
		reflect.TypeFor[ListOp]():         enum(string(domain.OpIn), string(domain.OpNotIn)),
		reflect.TypeFor[TopBy]():          enum(string(domain.ByMetric), string(domain.ByPeriod)),
		reflect.TypeFor[Direction]():      enum("desc", "asc"),
		reflect.TypeFor[Statement]():      {Type: "string", MinLength: ptr(1), MaxLength: ptr(app.MaxStatementBytes)},
		reflect.TypeFor[SearchText]():     {Type: "string", MinLength: ptr(1), MaxLength: ptr(app.MaxSearchChars)},
		reflect.TypeFor[Cursor]():         {Type: "string", MinLength: ptr(1), MaxLength: ptr(app.MaxCursorBytes)},
		reflect.TypeFor[answerTag]():      constant("answer"),
		reflect.TypeFor[refusalTag]():     constant("refusal"),
		reflect.TypeFor[estimateTag]():    constant("estimate"),
		reflect.TypeFor[legBytes]():       {Types: []string{"integer", "string"}},
		reflect.TypeFor[wouldRefuse]():    {Types: []string{"string", "null"}},
		reflect.TypeFor[domain.Code]():    enum(codes...),
		reflect.TypeFor[domain.Posture](): enum(string(domain.SharedServiceUser), string(domain.ImpersonationAtSource)),
		reflect.TypeFor[domain.Cell]():    {Types: []string{"string", "null"}},
	}
}

// inferFor generates the schema of T.
func inferFor[T any](types map[reflect.Type]*Schema) (*Schema, error) {
	return infer(reflect.TypeFor[T](), types)
}

// oneOf is an object schema that admits exactly one of variants.
func oneOf(variants ...*Schema) *Schema { return &Schema{Type: "object", OneOf: variants} }

func items(s *Schema, minItems, maxItems int) {
	if minItems > 0 {
		s.MinItems = ptr(minItems)
	}
	s.MaxItems = ptr(maxItems)
}

// generateSchemas builds the schemas of every tool this build serves.
func generateSchemas() (map[domain.Capability]Schemas, error) {
	types := scalarSchemas()
	fixed, err := inferFor[FixedRange](types)
	if err != nil {
		return nil, err
	}
	fixed.Description = "Explicit dates: the range holds start and runs up to, not including, end."
	relative, err := inferFor[RelativeRange](types)
	if err != nil {
		return nil, err
	}
	relative.Description = "Relative: the last count buckets of unit before the current one, on the server's clock."
	eq, err := inferFor[EqFilter](types)
	if err != nil {
		return nil, err
	}
	list, err := inferFor[ListFilter](types)
	if err != nil {
		return nil, err
	}
	items(list.Property("values"), 1, domain.MaxFilterValues)
	types[reflect.TypeFor[TimeRange]()] = oneOf(fixed, relative)
	types[reflect.TypeFor[Filter]()] = oneOf(eq, list)

	ask, err := inferFor[AskMetricArgs](types)
	if err != nil {
		return nil, err
	}
	items(ask.Property("metrics"), 1, domain.MaxMetrics)
	items(ask.Property("dimensions"), 0, domain.MaxDimensions)
	items(ask.Property("filters"), 0, domain.MaxFilters)

	describe, err := inferFor[DescribeCatalogArgs](types)
	if err != nil {
		return nil, err
	}
	items(describe.Property("metrics"), 1, app.MaxDescribeMetrics)

	answer, err := inferFor[answerBody](types)
	if err != nil {
		return nil, err
	}
	answer.Description = "An answer: rows with their provenance."
	answer.Property("columns").Items.Property("role").Enum = []string{domain.RoleDimension, domain.RolePeriod, domain.RoleMetric}
	refusal, err := inferFor[refusalBody](types)
	if err != nil {
		return nil, err
	}
	refusal.Description = "A refusal: the question may not be asked, with a stable code."
	estimate, err := inferFor[estimateBody](types)
	if err != nil {
		return nil, err
	}
	estimate.Description = "An estimate (dry_run): what the question would scan, and the refusal it would meet; nothing ran."
	outcome := oneOf(answer, refusal, estimate)

	types[reflect.TypeFor[domain.Question]()] = ask
	catalog, err := inferFor[app.CatalogView](types)
	if err != nil {
		return nil, err
	}
	catalog.Description = "The catalogue as this caller may see it."
	catalogOutcome := oneOf(catalog, refusal.Clone())

	runSQL, err := inferFor[RunSQLArgs](types)
	if err != nil {
		return nil, err
	}
	sqlAnswer, err := inferFor[sqlAnswerBody](types)
	if err != nil {
		return nil, err
	}
	sqlAnswer.Description = "A result: the statement's rows, without provenance."
	sqlOutcome := oneOf(sqlAnswer, refusal.Clone())

	return map[domain.Capability]Schemas{
		domain.DescribeCatalog: {Input: describe, Output: catalogOutcome},
		domain.AskMetric:       {Input: ask, Output: outcome},
		domain.RunSQL:          {Input: runSQL, Output: sqlOutcome},
	}, nil
}

var schemas = sync.OnceValues(generateSchemas)

// ToolSchemas returns the generated schemas of the tool id, or an error
// when this build cannot serve it. The schemas are the caller's own copy.
func ToolSchemas(id domain.Capability) (Schemas, error) {
	all, err := schemas()
	if err != nil {
		return Schemas{}, fmt.Errorf("wire: generating schemas: %w", err)
	}
	s, ok := all[id]
	if !ok {
		return Schemas{}, fmt.Errorf("wire: tool %s is declared but this build cannot serve it yet", id)
	}
	return Schemas{Input: s.Input.Clone(), Output: s.Output.Clone()}, nil
}
