package mdcatalog

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"sutura.dev/domain"
)

// Sentinel errors. Every *Error wraps exactly one of them, so callers can
// tell the classes apart with errors.Is on the joined error Load returns.
var (
	// ErrNoDocuments: the catalogue holds no .md document at all.
	ErrNoDocuments = errors.New("the catalogue holds no markdown documents")
	// ErrRead: a file or directory of the catalogue cannot be read.
	ErrRead = errors.New("the catalogue cannot be read")
	// ErrTooLarge: a document is larger than MaxFileBytes.
	ErrTooLarge = errors.New("a catalogue document is too large")
	// ErrOutside: a path of the catalogue (a symbolic link) leads out of
	// the catalogue's directory.
	ErrOutside = errors.New("a path leaves the catalogue directory")
	// ErrFrontMatter: a document has no opening or closing "---" line, or
	// its front matter is not a YAML mapping.
	ErrFrontMatter = errors.New("malformed front matter")
	// ErrYAML: the front matter is not valid YAML, or uses YAML features
	// the catalogue refuses (aliases, keys that are not plain text).
	ErrYAML = errors.New("invalid yaml")
	// ErrDuplicateKey: a YAML mapping holds the same key twice.
	ErrDuplicateKey = errors.New("duplicate key")
	// ErrMissingKind: the front matter has no kind.
	ErrMissingKind = errors.New("missing kind")
	// ErrUnknownKind: kind is not one of the seven kinds.
	ErrUnknownKind = errors.New("unknown kind")
	// ErrUnknownKey: a key the kind's schema does not define, at any depth.
	ErrUnknownKey = errors.New("unknown key")
	// ErrSchema: the front matter violates its kind's schema in another
	// way (a missing key, a wrong type, a value outside a closed set), or
	// a document-level rule (a date that does not exist, an example's
	// question that does not decode).
	ErrSchema = errors.New("the front matter does not match its schema")
	// ErrInconsistent: a cross-reference or consistency problem found
	// across documents (docs/contract.md §2.1). It is domain.ErrInvalidDefinitions,
	// so code that knows only the domain can test for it, and the *Error
	// also wraps the *domain.Problem it was mapped from.
	ErrInconsistent = domain.ErrInvalidDefinitions
)

// Error is one problem in a catalogue. File is the slash-separated path of
// the document within the catalogue's file system (empty for a problem of
// the whole catalogue); Line and Column are 1-based positions in that file
// (Line is 0 only when there is no file or the file cannot be read, Column
// is 0 when the problem is about a whole line); Key is the dotted and
// indexed path of the front-matter key it is about, such as
// "dimensions[1].values[3]" (empty for the document itself); Reason is a
// lowercase phrase. None of them ever holds a value written in the
// catalogue; Key names a key only when the key is an identifier.
type Error struct {
	File   string
	Line   int
	Column int
	Key    string
	Reason string
	// Err is the sentinel this error belongs to.
	Err error
	// Cause is the underlying error: the *domain.Problem of a consistency
	// problem, the *domain.FieldError of an example's question, or the
	// I/O error of ErrRead. It may be nil.
	Cause error
}

// Error renders "file:line:column: key: reason", leaving out the parts
// that are empty.
func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			b.WriteString(":" + strconv.Itoa(e.Line))
			if e.Column > 0 {
				b.WriteString(":" + strconv.Itoa(e.Column))
			}
		}
		b.WriteString(": ")
	}
	if e.Key != "" {
		b.WriteString(e.Key + ": ")
	}
	b.WriteString(e.Reason)
	return b.String()
}

// Unwrap returns the sentinel and, when there is one, the cause.
func (e *Error) Unwrap() []error {
	if e.Cause != nil {
		return []error{e.Err, e.Cause}
	}
	return []error{e.Err}
}

// errorList collects *Errors and joins them in file, line, column order.
type errorList []*Error

func (l *errorList) add(e *Error) { *l = append(*l, e) }

func (l errorList) err() error {
	if len(l) == 0 {
		return nil
	}
	slices.SortStableFunc(l, func(a, b *Error) int {
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		if a.Column != b.Column {
			return a.Column - b.Column
		}
		return strings.Compare(a.Key, b.Key)
	})
	l = slices.CompactFunc(l, func(a, b *Error) bool {
		return a.File == b.File && a.Line == b.Line && a.Column == b.Column && a.Key == b.Key && a.Reason == b.Reason
	})
	var errs []error
	perFile := 0
	for i, e := range l {
		if i > 0 && e.File != l[i-1].File {
			perFile = 0
		}
		perFile++
		switch {
		case perFile <= maxErrorsPerFile:
			errs = append(errs, e)
		case perFile == maxErrorsPerFile+1:
			more := 0
			for _, x := range l[i:] {
				if x.File == e.File {
					more++
				}
			}
			errs = append(errs, &Error{File: e.File, Reason: fmt.Sprintf("and %d more problems in this file", more), Err: e.Err})
		}
	}
	return errors.Join(errs...)
}

// maxErrorsPerFile bounds the report of one file, so a file with a
// thousand bad items does not bury the rest of the report.
const maxErrorsPerFile = 50
