package importread

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

// Result is what an importer made of its input: definitions in the
// catalogue's vocabulary, and one entry per construct read. Every
// importer returns this shape, so the caller hands it to the shared
// catalogue writer.
type Result struct {
	// Definitions hold the models, relationships and metrics; metrics
	// carry no dimensions (Dimensions lists them per model) and no source
	// or audience (the writer sets both).
	Definitions domain.Definitions
	// Dimensions are the categorical dimensions of each model.
	Dimensions []Dimension
	// Glossary holds the synonyms the input declares, when its format has
	// any.
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
	Kind   string   // the input's word for the construct: semantic_model, measure, cube, join, dataset, field, ...
	Name   string   // its name (owner.name for a member of a model, cube or dataset)
	File   string   // the file, slash-separated, relative to the input
	Line   int      // 1-based, 0 when unknown
	Output string   // the definition it became: "metric:<name>", "model:<name>", "relationship:<name>", "dimension:<model>.<name>", "glossary:<term>"; "" for none
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

// Error is one reason the input is malformed: the file, the line and what
// is wrong there. It never quotes a value of the input. It wraps the
// importer's sentinel (its ErrMalformed), given to NewErrors.
type Error struct {
	File   string
	Line   int
	Reason string
	// Malformed is the importer's sentinel: the input is not one its
	// format's own tool would accept.
	Malformed error
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Reason)
	}
	return e.File + ": " + e.Reason
}

// Unwrap returns the importer's sentinel.
func (e *Error) Unwrap() error { return e.Malformed }

// MaxErrors bounds the malformations Errors.Err reports one by one.
const MaxErrors = 20

// Errors collects the reasons one input is malformed, in the order they
// were found. The zero value is not usable: build it with NewErrors.
type Errors struct {
	malformed error
	list      []error
}

// NewErrors returns an empty collection whose errors wrap malformed, the
// importer's sentinel.
func NewErrors(malformed error) *Errors { return &Errors{malformed: malformed} }

// Add records that file is malformed at line (0 when unknown) because of
// reason, a phrase that quotes no value of the input.
func (e *Errors) Add(file string, line int, reason string) {
	e.list = append(e.list, &Error{File: file, Line: line, Reason: reason, Malformed: e.malformed})
}

// Mark returns a position in the collection, for Take.
func (e *Errors) Mark() int { return len(e.list) }

// Take removes the malformations recorded since mark, a position Mark
// returned, and returns them in order: a reader that can refuse the one
// construct they belong to does so and reads on (docs/importing.md).
func (e *Errors) Take(mark int) []*Error {
	if mark >= len(e.list) {
		return nil
	}
	var out []*Error
	for _, err := range e.list[mark:] {
		if x, ok := err.(*Error); ok {
			out = append(out, x)
		}
	}
	e.list = e.list[:mark]
	return out
}

// Len reports how many malformations were recorded.
func (e *Errors) Len() int { return len(e.list) }

// Err joins what was recorded (errors.Join): the first MaxErrors, then one
// error counting the rest, each wrapping the sentinel; nil when nothing
// was.
func (e *Errors) Err() error {
	errs := e.list
	if len(errs) > MaxErrors {
		more := len(errs) - MaxErrors
		errs = append(errs[:MaxErrors:MaxErrors], fmt.Errorf("%w: and %d more", e.malformed, more))
	}
	return errors.Join(errs...)
}
