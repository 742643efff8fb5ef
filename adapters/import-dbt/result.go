package dbt

import (
	"errors"
	"fmt"

	"sutura.dev/domain"
)

// File is one file of the input, read by the caller: its slash-separated
// path relative to the input, and its bytes (nil for a file the caller did
// not read because it cannot hold definitions).
type File struct {
	Path string
	Data []byte
}

// Result is what Read made of a dbt project: definitions in the
// catalogue's vocabulary, and one entry per construct read. It has the
// shape every importer returns, so the caller can hand it to the shared
// catalogue writer.
type Result struct {
	// Definitions hold the models, relationships and metrics; metrics
	// carry no dimensions (Dimensions lists them per model) and no source
	// or audience (the writer sets both).
	Definitions domain.Definitions
	// Dimensions are the categorical dimensions of each model.
	Dimensions []Dimension
	// Glossary is empty: dbt has no synonyms.
	Glossary []domain.Glossary
	// Entries list every construct read, in input order.
	Entries []Entry
}

// Dimension is one categorical dimension of a model, named as in the
// input.
type Dimension struct {
	Model       string
	Name        string
	Column      string
	Description string
}

// Entry is one construct of the input and what became of it.
type Entry struct {
	Kind   string   // semantic_model, entity, dimension, measure, metric, saved_query, project_configuration
	Name   string   // its name (model.name for a model's entity, dimension or measure)
	File   string   // the file, slash-separated, relative to the input
	Line   int      // 1-based, 0 when unknown
	Output string   // the definition it became: "metric:<name>", "model:<name>", "relationship:<name>", "dimension:<model>.<name>"; "" for none
	Status string   // Imported, Refused or Ignored
	Became string   // for an imported entry: what it became
	Reason string   // for a refused or ignored entry: why
	Notes  []string // what a reviewer should know besides
}

// The statuses of an entry.
const (
	Imported = "imported"
	Refused  = "refused"
	Ignored  = "ignored"
)

// ErrMalformed is wrapped by every *Error: the input is not a dbt project
// dbt itself would accept (a syntax error, a value of the wrong type, a
// missing name, a duplicate name, a reference to nothing), so nothing of
// it is imported.
var ErrMalformed = errors.New("the input is not a well-formed dbt semantic layer")

// Error is one reason the input is malformed: the file, the line and what
// is wrong there. It never quotes a value of the input.
type Error struct {
	File   string
	Line   int
	Reason string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Reason)
	}
	return e.File + ": " + e.Reason
}

// Unwrap returns ErrMalformed.
func (e *Error) Unwrap() error { return ErrMalformed }
