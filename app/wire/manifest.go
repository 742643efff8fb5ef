package wire

import (
	"sutura.dev/app"
	"sutura.dev/domain"
)

// Annotations are a tool's behaviour hints, in the shape of the MCP tool
// annotations (readOnlyHint and idempotentHint always present).
type Annotations struct {
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  bool   `json:"idempotentHint"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
	ReadOnlyHint    bool   `json:"readOnlyHint"`
	Title           string `json:"title,omitempty"`
}

// AnnotationsOf returns the hints of t.
func AnnotationsOf(t app.Tool) Annotations {
	return Annotations{
		Title:           t.Title,
		ReadOnlyHint:    t.ReadOnly,
		DestructiveHint: ptr(t.Destructive),
		IdempotentHint:  t.Idempotent,
		OpenWorldHint:   ptr(t.OpenWorld),
	}
}

// Declaration is one tool as the manifest records it and as every
// transport must serve it.
type Declaration struct {
	ID           domain.Capability `json:"id"`
	Title        string            `json:"title"`
	Description  string            `json:"description"`
	Scope        domain.Scope      `json:"scope"`
	InputSchema  *Schema           `json:"input_schema"`
	OutputSchema *Schema           `json:"output_schema"`
	Annotations  Annotations       `json:"annotations"`
}

// Manifest is the durable record of the tool declarations (`sutura tools`):
// the interface every transport serves in full, no more and no less.
type Manifest struct {
	Version int           `json:"manifest_version"`
	Tools   []Declaration `json:"tools"`
}

// NewManifest declares tools (from app.Tools) with their generated schemas
// and annotations. It opens nothing. It fails for a tool this build cannot
// serve: no transport pretends to serve it.
func NewManifest(tools []app.Tool) (Manifest, error) {
	m := Manifest{Version: app.ManifestVersion, Tools: []Declaration{}}
	for _, t := range tools {
		s, err := ToolSchemas(t.ID)
		if err != nil {
			return Manifest{}, err
		}
		m.Tools = append(m.Tools, Declaration{
			ID: t.ID, Title: t.Title, Description: t.Description, Scope: t.Scope,
			InputSchema: s.Input, OutputSchema: s.Output, Annotations: AnnotationsOf(t),
		})
	}
	return m, nil
}

// Tool returns the declaration of the tool id, and false when the manifest
// does not declare it.
func (m Manifest) Tool(id domain.Capability) (Declaration, bool) {
	for _, d := range m.Tools {
		if d.ID == id {
			return d, true
		}
	}
	return Declaration{}, false
}
