package httpapi

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"

	"sutura.dev/app/wire"
	"sutura.dev/domain"
)

// scalarSchemas gives the named scalar wire types their constraints.
func scalarSchemas() map[reflect.Type]*jsonschema.Schema {
	constant := func(v string) *jsonschema.Schema {
		return &jsonschema.Schema{Type: "string", Const: jsonschema.Ptr[any](v)}
	}
	code := &jsonschema.Schema{Type: "string"}
	status := &jsonschema.Schema{Type: "integer"}
	statuses := map[int]bool{}
	for _, c := range domain.Codes() {
		code.Enum = append(code.Enum, string(c))
		statuses[c.Status()] = true
	}
	failure := &jsonschema.Schema{Type: "string"}
	for _, c := range FailureCodes() {
		failure.Enum = append(failure.Enum, string(c))
		statuses[c.Status()] = true
	}
	for _, s := range sortedInts(statuses) {
		status.Enum = append(status.Enum, s)
	}
	return map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[refusalTag]():  constant("refusal"),
		reflect.TypeFor[okTag]():       constant("ok"),
		reflect.TypeFor[readyTag]():    constant("ready"),
		reflect.TypeFor[domain.Code](): code,
		reflect.TypeFor[failureTag]():  failure,
		reflect.TypeFor[statusCode]():  status,
	}
}

func sortedInts(set map[int]bool) []int {
	out := make([]int, 0, len(set))
	for v := range set {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

// closeObjects walks s and closes every object (additionalProperties:
// false), as the tools' schemas are, and drops the "null" inference adds to
// lists: these bodies always write a list, never null.
func closeObjects(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && s.Types[0] == "null" && s.Types[1] == "array" {
		s.Type, s.Types = s.Types[1], nil
	}
	if s.Type == "object" && len(s.OneOf) == 0 && s.AdditionalProperties == nil {
		s.AdditionalProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}}
	}
	for _, c := range s.Properties {
		closeObjects(c)
	}
	closeObjects(s.Items)
}

// Component schema names of the OpenAPI document.
const (
	schemaQuestion         = "Question"
	schemaAnswer           = "Answer"
	schemaEstimate         = "Estimate"
	schemaRefusal          = "Refusal"
	schemaFailure          = "Failure"
	schemaCatalog          = "CatalogView"
	schemaHealth           = "Health"
	schemaReady            = "Ready"
	schemaResourceMetadata = "ProtectedResourceMetadata"
	schemaJSONRPC          = "JSONRPCMessage"
	schemaSQLStatement     = "SQLStatement"
	schemaSQLResult        = "SQLResult"
)

// componentSchemas generates every schema the document names. The tools'
// schemas are those of the tool declarations (app/wire), so this document
// and every other transport describe the question, the answer and the
// catalogue with the same bytes; the rest is generated from the HTTP wire
// types.
func componentSchemas() (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	add := func(name string, s any) error {
		b, err := json.Marshal(s)
		if err != nil {
			return fmt.Errorf("schema %s: %w", name, err)
		}
		out[name] = b
		return nil
	}
	ask, err := wire.ToolSchemas(domain.AskMetric)
	if err != nil {
		return nil, err
	}
	describe, err := wire.ToolSchemas(domain.DescribeCatalog)
	if err != nil {
		return nil, err
	}
	if len(ask.Output.OneOf) != 3 {
		return nil, fmt.Errorf("the ask_metric output is not the oneOf of an answer, a refusal and an estimate")
	}
	if len(describe.Output.OneOf) != 2 {
		return nil, fmt.Errorf("the describe_catalog output is not the oneOf of the catalogue and a refusal")
	}
	for name, s := range map[string]*wire.Schema{schemaQuestion: ask.Input, schemaAnswer: ask.Output.OneOf[0], schemaEstimate: ask.Output.OneOf[2], schemaCatalog: describe.Output.OneOf[0]} {
		if err := add(name, s); err != nil {
			return nil, err
		}
	}

	opts := &jsonschema.ForOptions{TypeSchemas: scalarSchemas()}
	for name, gen := range map[string]struct {
		infer       func(*jsonschema.ForOptions) (*jsonschema.Schema, error)
		description string
	}{
		schemaRefusal:          {jsonschema.For[refusalWire], "A refusal: the question may not be asked, with a stable code. The response status is the reason's status."},
		schemaFailure:          {jsonschema.For[failureWire], "A failure: the request was not served, for the reason given by a stable code."},
		schemaHealth:           {jsonschema.For[healthWire], "The process serves HTTP."},
		schemaReady:            {jsonschema.For[readyWire], "The process is ready to answer."},
		schemaResourceMetadata: {jsonschema.For[resourceMetadataWire], "OAuth 2.0 protected resource metadata (RFC 9728)."},
	} {
		s, err := gen.infer(opts)
		if err != nil {
			return nil, fmt.Errorf("schema %s: %w", name, err)
		}
		s.Description = gen.description
		closeObjects(s)
		if err := add(name, s); err != nil {
			return nil, err
		}
	}
	if err := add(schemaJSONRPC, &jsonschema.Schema{Type: "object",
		Description: "One JSON-RPC 2.0 message of the Model Context Protocol (Streamable HTTP, stateless, JSON responses)."}); err != nil {
		return nil, err
	}
	return out, nil
}

// addRunSQLSchemas adds the schemas of run_sql to a document's components:
// those of its tool declaration (app/wire), as every transport serves them.
func addRunSQLSchemas(out map[string]json.RawMessage) error {
	sql, err := wire.ToolSchemas(domain.RunSQL)
	if err != nil {
		return err
	}
	if len(sql.Output.OneOf) != 2 {
		return fmt.Errorf("the run_sql output is not the oneOf of a result and a refusal")
	}
	for name, s := range map[string]*wire.Schema{schemaSQLStatement: sql.Input, schemaSQLResult: sql.Output.OneOf[0]} {
		b, err := json.Marshal(s)
		if err != nil {
			return fmt.Errorf("schema %s: %w", name, err)
		}
		out[name] = b
	}
	return nil
}
