package mdcatalog

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"sutura.dev/domain"
	"sutura.dev/semantic"
)

// Load reads the catalogue in fsys and pins it as a bundle stamped with
// version (a label from configuration, not digested).
//
// Every file whose name ends in ".md" is a document, wherever it is in the
// tree (a README.md inside the catalogue is a document too and needs front
// matter); other files, and files and directories whose names start with
// a dot, are ignored, and so is the report of an import at the root
// (ImportReportName). Documents are read in sorted path order; directory
// names carry no meaning.
//
// On failure the error joins every problem found, each an *Error, sorted
// by file, line and column; errors.Is tells their classes apart
// (ErrNoDocuments, ErrFrontMatter, ErrYAML, ErrDuplicateKey,
// ErrMissingKind, ErrUnknownKind, ErrUnknownKey, ErrSchema,
// ErrInconsistent, ErrRead, ErrTooLarge, ErrOutside). A document larger
// than MaxFileBytes is refused by name. Consistency across documents is checked only
// once every document is well formed, so that one broken model is not
// also reported as an unknown model by every metric over it.
func Load(fsys fs.FS, version string) (*domain.Bundle, error) {
	return load(fsys, version, nil)
}

// MaxFileBytes bounds one catalogue document: a larger file is refused by
// name (ErrTooLarge) before more than this is read.
const MaxFileBytes = 1 << 20

// load is Load; outside, when set, tells a symbolic link at a path that
// leads out of the catalogue's directory.
func load(fsys fs.FS, version string, outside func(p string) bool) (*domain.Bundle, error) {
	paths, errs := documentPaths(fsys, outside)
	if len(errs) > 0 {
		return nil, errs.err()
	}
	if len(paths) == 0 {
		return nil, errorList{{Reason: "the catalogue holds no markdown (.md) documents", Err: ErrNoDocuments}}.err()
	}
	schemas, err := loadSchemas()
	if err != nil {
		return nil, fmt.Errorf("the embedded catalogue schemas do not load: %w", err)
	}
	go schemas.warm()
	var docs []*document
	for _, p := range paths {
		data, rerr := readLimited(fsys, p)
		if rerr != nil {
			errs.add(rerr)
			continue
		}
		d, derrs := readDocument(p, data, schemas)
		errs = append(errs, derrs...)
		if d != nil {
			docs = append(docs, d)
		}
	}
	if len(errs) > 0 {
		return nil, errs.err()
	}
	return assemble(docs, version)
}

// readLimited reads the document at p, refusing one larger than
// MaxFileBytes by name without reading more than that.
func readLimited(fsys fs.FS, p string) ([]byte, *Error) {
	f, err := fsys.Open(p)
	if err != nil {
		return nil, &Error{File: p, Reason: "cannot be read", Err: ErrRead, Cause: err}
	}
	defer f.Close()
	tooLarge := &Error{File: p, Reason: fmt.Sprintf("is larger than %d bytes (1 MiB), the most a catalogue document may hold", MaxFileBytes), Err: ErrTooLarge}
	if info, err := f.Stat(); err == nil && info.Size() > MaxFileBytes {
		return nil, tooLarge
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	switch {
	case err != nil:
		return nil, &Error{File: p, Reason: "cannot be read", Err: ErrRead, Cause: err}
	case len(data) > MaxFileBytes:
		return nil, tooLarge
	}
	return data, nil
}

// LoadDir loads the catalogue in the directory dir (see Load). Errors name
// files relative to dir. Nothing outside dir is read: a symbolic link that
// leads out of it is refused by name (ErrOutside), and the files are read
// through an os.Root of dir, which refuses any path that escapes it.
func LoadDir(dir, version string) (*domain.Bundle, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, &Error{File: dir, Reason: "the catalogue directory cannot be read", Err: ErrRead, Cause: err}
	}
	if !info.IsDir() {
		return nil, &Error{File: dir, Reason: "the catalogue is not a directory", Err: ErrRead}
	}
	base, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, &Error{File: dir, Reason: "the catalogue directory cannot be read", Err: ErrRead, Cause: err}
	}
	root, err := os.OpenRoot(base)
	if err != nil {
		return nil, &Error{File: dir, Reason: "the catalogue directory cannot be read", Err: ErrRead, Cause: err}
	}
	defer root.Close()
	return load(root.FS(), version, func(p string) bool {
		target, err := filepath.EvalSymlinks(filepath.Join(base, filepath.FromSlash(p)))
		if err != nil {
			return true
		}
		rel, err := filepath.Rel(base, target)
		return err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator))
	})
}

// documentPaths lists the .md files of fsys in sorted path order. With
// outside set, a symbolic link that leads out of the catalogue is an
// error, whatever its name.
func documentPaths(fsys fs.FS, outside func(p string) bool) ([]string, errorList) {
	var paths []string
	var errs errorList
	walkErr := fs.WalkDir(fsys, ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			errs.add(&Error{File: p, Reason: "cannot be read", Err: ErrRead, Cause: err})
			if e != nil && e.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if p != "." && strings.HasPrefix(e.Name(), ".") {
			if e.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if outside != nil && e.Type()&fs.ModeSymlink != 0 && outside(p) {
			errs.add(&Error{File: p, Reason: "is a symbolic link that leads out of the catalogue directory", Err: ErrOutside})
			return nil
		}
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".md") && p != ImportReportName {
			paths = append(paths, p)
		}
		return nil
	})
	if walkErr != nil {
		errs.add(&Error{Reason: "cannot be read", Err: ErrRead, Cause: walkErr})
	}
	slices.Sort(paths)
	return paths, errs
}

// assembler gathers the documents into definitions and knowledge and maps
// the domain's consistency problems back to them.
type assembler struct {
	byName    map[string]*document // kind + "\x00" + name
	knowledge []*document
	errs      errorList
}

func assemble(docs []*document, version string) (*domain.Bundle, error) {
	a := &assembler{byName: map[string]*document{}}
	var defs domain.Definitions
	var k domain.Knowledge
	for _, d := range docs {
		id := d.kind + "\x00" + d.name
		if first, dup := a.byName[id]; dup {
			a.duplicate(d, first)
			continue
		}
		a.byName[id] = d
		collect(d, &defs, &k)
		if d.kind != "model" && d.kind != "relationship" && d.kind != "metric" {
			a.knowledge = append(a.knowledge, d)
		}
	}
	b, err := domain.NewBundle(version, defs, k)
	if err != nil {
		if !errors.Is(err, domain.ErrInvalidDefinitions) {
			return nil, err
		}
		for _, p := range problems(err) {
			a.errs.add(a.problem(p))
		}
	} else {
		a.examples(b)
	}
	if len(a.errs) > 0 {
		return nil, a.errs.err()
	}
	return b, nil
}

// nameKey is the key that names a document of each kind.
func nameKey(kind string) string {
	switch kind {
	case "glossary":
		return "term"
	case "not_defined":
		return "phrase"
	}
	return "name"
}

// duplicate reports a document whose kind and name an earlier document
// (in path order) already has. The later one is left out of the
// consistency check, so every problem maps to exactly one document.
func (a *assembler) duplicate(d, first *document) {
	key := nameKey(d.kind)
	line, _ := locate(first.root, []string{key})
	reason := fmt.Sprintf("another %s has the same %s (%s:%d)", kindNoun(d.kind), key, first.path, first.line+line-1)
	e := d.errorAt([]string{key}, ErrInconsistent, reason)
	e.Cause = &domain.Problem{Kind: d.kind, Name: d.name, Key: key, Reason: reason}
	a.errs.add(e)
}

func kindNoun(kind string) string {
	switch kind {
	case "glossary":
		return "glossary entry"
	case "not_defined":
		return "not_defined phrase"
	}
	return kind
}

func problems(err error) []*domain.Problem {
	var out []*domain.Problem
	var walk func(error)
	walk = func(err error) {
		if p, ok := err.(*domain.Problem); ok {
			out = append(out, p)
			return
		}
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range j.Unwrap() {
				walk(e)
			}
		}
	}
	walk(err)
	return out
}

var alsoDefined = regexp.MustCompile(`^the phrase is also defined by glossary term .*$`)

// problem maps a domain problem to the document, key and position it is
// about. Keys follow the domain's shape; where the document's shape
// differs (a required filter's operator is a key of its own), the key is
// translated to the document's.
func (a *assembler) problem(p *domain.Problem) *Error {
	if p.Kind == "knowledge" {
		return a.knowledgeSize(p)
	}
	d := a.byName[p.Kind+"\x00"+p.Name]
	if d == nil {
		return &Error{Key: p.Key, Reason: p.Reason, Err: ErrInconsistent, Cause: p}
	}
	path := parsePath(p.Key)
	if len(path) == 3 && path[0] == "required_filters" && (path[2] == "column" || path[2] == "value") {
		item, _ := step(d.root, path[0])
		item, _ = step(item, path[1])
		if item != nil && len(item.Content) == 2 {
			path = []string{path[0], path[1], item.Content[0].Value, path[2]}
		}
	}
	reason := p.Reason
	if p.Kind == "not_defined" && alsoDefined.MatchString(reason) {
		// The domain names the glossary term, which is free text; name the
		// glossary document instead.
		reason = "the phrase is also defined by a glossary entry"
		if g := a.glossaryDefining(d, path); g != nil {
			line, _ := locate(g.root, []string{"term"})
			reason += fmt.Sprintf(" (%s:%d)", g.path, g.line+line-1)
		}
		p = &domain.Problem{Kind: p.Kind, Name: p.Name, Key: p.Key, Reason: reason}
	}
	reason = namedColumn(d, path, reason)
	e := d.errorAt(path, ErrInconsistent, reason)
	e.Cause = p
	return e
}

// missingColumn matches the domain's sentence for a reference to a column
// its model does not declare, which names the model but not the column.
var missingColumn = regexp.MustCompile(`^(.*) names a column (model \S+|the model) does not declare$`)

// namedColumn completes that sentence with the column the document names
// at path, when it is an identifier (a column name, never a value):
// "the term names column amount, which model sales does not declare".
func namedColumn(d *document, path []string, reason string) string {
	m := missingColumn.FindStringSubmatch(reason)
	if m == nil {
		return reason
	}
	n := d.root
	for _, seg := range path {
		n, _ = step(n, seg)
	}
	if n == nil || n.Kind != yaml.ScalarNode || domain.CheckIdent(n.Value) != nil {
		return reason
	}
	return m[1] + " names column " + n.Value + ", which " + m[2] + " does not declare"
}

// glossaryDefining finds the glossary document whose term or synonym is
// the not_defined phrase at path (compared as the domain does, ignoring
// case; the last definition wins, as in domain.Check).
func (a *assembler) glossaryDefining(d *document, path []string) *document {
	nd, _ := d.value.(domain.NotDefined)
	phrase := nd.Phrase
	if len(path) == 2 && path[0] == "synonyms" {
		if i, err := strconv.Atoi(path[1]); err == nil && i >= 0 && i < len(nd.Synonyms) {
			phrase = nd.Synonyms[i]
		}
	}
	var found *document
	for _, g := range a.knowledge {
		gl, ok := g.value.(domain.Glossary)
		if !ok {
			continue
		}
		for _, t := range append([]string{gl.Term}, gl.Synonyms...) {
			if strings.ToLower(t) == strings.ToLower(phrase) {
				found = g
			}
		}
	}
	return found
}

// knowledgeSize reports the knowledge limit at the document (in path
// order) whose text carries the total over it.
func (a *assembler) knowledgeSize(p *domain.Problem) *Error {
	total := 0
	var at *document
	for _, d := range a.knowledge {
		total += knowledgeBytes(d)
		if total > domain.MaxKnowledgeBytes {
			at = d
			break
		}
	}
	e := &Error{Reason: p.Reason + "; the total crosses the limit in this document", Err: ErrInconsistent, Cause: p}
	if at != nil {
		e.File, e.Line = at.path, 1
	}
	return e
}

// knowledgeBytes counts a knowledge document's text the way
// domain.Knowledge.TextBytes does.
func knowledgeBytes(d *document) int {
	var k domain.Knowledge
	collect(d, &domain.Definitions{}, &k)
	return k.TextBytes()
}

// collect appends the document's parsed value to the definitions or the
// knowledge it belongs to.
func collect(d *document, defs *domain.Definitions, k *domain.Knowledge) {
	switch v := d.value.(type) {
	case domain.Model:
		defs.Models = append(defs.Models, v)
	case domain.Relationship:
		defs.Relationships = append(defs.Relationships, v)
	case domain.Metric:
		defs.Metrics = append(defs.Metrics, v)
	case domain.Glossary:
		k.Glossary = append(k.Glossary, v)
	case domain.Caveat:
		k.Caveats = append(k.Caveats, v)
	case domain.NotDefined:
		k.NotDefined = append(k.NotDefined, v)
	case domain.Example:
		k.Examples = append(k.Examples, v)
	}
}

// examples reports every example whose question the compiler refuses
// (semantic.CheckExamples, under the default ceilings; the deployment's
// own are checked again at start-up) at the example's question.
func (a *assembler) examples(b *domain.Bundle) {
	err := semantic.CheckExamples(b, domain.DateFromTime(time.Now().UTC()), semantic.Ceilings{})
	if err == nil {
		return
	}
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		var ee *semantic.ExampleError
		if errors.As(e, &ee) {
			a.errs.add(a.problem(&domain.Problem{Kind: "example", Name: ee.Example, Key: "question",
				Reason: fmt.Sprintf("the question is refused (%s): %s", ee.Code, ee.Detail)}))
		}
	}
}
