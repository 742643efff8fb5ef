package mcpserver

import (
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"sutura.dev/app"
	"sutura.dev/app/wire"
	"sutura.dev/domain"
)

// The tools' wire types, schemas and declarations live in package
// sutura.dev/app/wire, shared by every transport. This file converts them
// to the SDK's types at the edge.

// Schemas are the generated JSON Schemas (draft 2020-12) of one tool, as
// the SDK's schema type.
type Schemas struct {
	Input  *jsonschema.Schema
	Output *jsonschema.Schema
}

// ToolSchemas returns the generated schemas of the tool id (wire.ToolSchemas),
// or an error when this build cannot serve it.
func ToolSchemas(id domain.Capability) (Schemas, error) {
	s, err := wire.ToolSchemas(id)
	if err != nil {
		return Schemas{}, fmt.Errorf("mcpserver: %w", err)
	}
	return Schemas{Input: sdkSchema(s.Input), Output: sdkSchema(s.Output)}, nil
}

// sdkSchema converts a generated schema to the SDK's type, keeping the
// order of its properties, so that both marshal to the same bytes.
func sdkSchema(s *wire.Schema) *jsonschema.Schema {
	if s == nil {
		return nil
	}
	out := &jsonschema.Schema{
		Type: s.Type, Types: s.Types, Description: s.Description, Pattern: s.Pattern, Format: s.Format,
		Minimum: s.Minimum, Maximum: s.Maximum, MinLength: s.MinLength, MaxLength: s.MaxLength,
		MinItems: s.MinItems, MaxItems: s.MaxItems, Required: s.Required, Items: sdkSchema(s.Items),
	}
	for _, v := range s.Enum {
		out.Enum = append(out.Enum, v)
	}
	if s.Const != nil {
		out.Const = jsonschema.Ptr[any](*s.Const)
	}
	if s.Properties != nil {
		out.Properties = make(map[string]*jsonschema.Schema, len(s.Properties))
		for _, p := range s.Properties {
			out.Properties[p.Name] = sdkSchema(p.Schema)
			out.PropertyOrder = append(out.PropertyOrder, p.Name)
		}
	}
	if s.Closed {
		out.AdditionalProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}}
	}
	for _, o := range s.OneOf {
		out.OneOf = append(out.OneOf, sdkSchema(o))
	}
	return out
}

// Declaration is one tool as the manifest records it (wire.Declaration).
type Declaration = wire.Declaration

// Manifest is the durable record of the tool declarations (wire.Manifest).
type Manifest = wire.Manifest

// NewManifest is wire.NewManifest: the declarations of tools, which this
// server serves in full.
func NewManifest(tools []app.Tool) (Manifest, error) {
	m, err := wire.NewManifest(tools)
	if err != nil {
		return Manifest{}, fmt.Errorf("mcpserver: %w", err)
	}
	return m, nil
}

// annotations are the MCP hints of t (wire.AnnotationsOf).
func annotations(t app.Tool) mcp.ToolAnnotations {
	a := wire.AnnotationsOf(t)
	return mcp.ToolAnnotations{
		Title:           a.Title,
		ReadOnlyHint:    a.ReadOnlyHint,
		DestructiveHint: a.DestructiveHint,
		IdempotentHint:  a.IdempotentHint,
		OpenWorldHint:   a.OpenWorldHint,
	}
}
