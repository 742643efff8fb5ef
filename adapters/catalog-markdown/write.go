package mdcatalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
	"sutura.dev/domain"
)

// File is one file of a written catalogue: a slash-separated path relative
// to the catalogue's root, and its bytes.
type File struct {
	Path string
	Data []byte
}

// ErrOutputNotEmpty is returned by WriteFiles when the directory it should
// create already holds files: a writer never overwrites or mixes with
// what is there.
var ErrOutputNotEmpty = errors.New("the output directory already holds files")

// Documents renders definitions and knowledge as catalogue documents, one
// file per definition or knowledge entry, that Load reads back to the
// same values and the same digest. The output is deterministic: the same
// values, in any order, give the same files with the same bytes, sorted
// by path. Models go under models/, relationships under relationships/,
// metrics under metrics/ and knowledge under glossary/, caveats/,
// not_defined/ and examples/, each file named after the document's name
// (a knowledge phrase is folded to a file name; clashes get a numeric
// suffix).
func Documents(defs domain.Definitions, k domain.Knowledge) ([]File, error) {
	w := &docWriter{used: map[string]bool{}}
	for _, m := range sortedBy(defs.Models, func(m domain.Model) string { return m.Name }) {
		w.add("models", m.Name, modelNode(m), m.Description)
	}
	for _, r := range sortedBy(defs.Relationships, func(r domain.Relationship) string { return r.Name }) {
		w.add("relationships", r.Name, relationshipNode(r), r.Description)
	}
	for _, m := range sortedBy(defs.Metrics, func(m domain.Metric) string { return m.Name }) {
		w.add("metrics", m.Name, metricNode(m), m.Description)
	}
	for _, g := range sortedBy(k.Glossary, func(g domain.Glossary) string { return g.Term }) {
		w.add("glossary", g.Term, glossaryNode(g), g.Note)
	}
	for _, c := range sortedBy(k.Caveats, func(c domain.Caveat) string { return c.Name }) {
		w.add("caveats", c.Name, caveatNode(c), c.Note)
	}
	for _, n := range sortedBy(k.NotDefined, func(n domain.NotDefined) string { return n.Phrase }) {
		w.add("not_defined", n.Phrase, notDefinedNode(n), n.Note)
	}
	for _, e := range sortedBy(k.Examples, func(e domain.Example) string { return e.Name }) {
		q, err := questionNode(e.Question)
		if err != nil {
			return nil, fmt.Errorf("example %s: %w", e.Name, err)
		}
		w.add("examples", e.Name, mapping("kind", text("example"), "name", text(e.Name), "asked", strList(e.Asked, false), "question", q), e.Note)
	}
	if w.err != nil {
		return nil, w.err
	}
	slices.SortFunc(w.files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return w.files, nil
}

// WriteFiles creates the directory dir (and its parents) and writes files
// into it. A dir that exists and holds anything is refused with
// ErrOutputNotEmpty, so a writer never mixes with or overwrites existing
// files; each file is created exclusively.
func WriteFiles(dir string, files []File) error {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("%s: %w", dir, ErrOutputNotEmpty)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("the output directory cannot be read: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("the output directory cannot be created: %w", err)
	}
	made := map[string]bool{}
	for _, f := range files {
		if !fs.ValidPath(f.Path) || f.Path == "." {
			return fmt.Errorf("a file to write has an invalid path")
		}
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if parent := filepath.Dir(p); !made[parent] {
			if err := os.MkdirAll(parent, 0o755); err != nil {
				return fmt.Errorf("%s cannot be created: %w", f.Path, err)
			}
			made[parent] = true
		}
		if err := writeNew(p, f.Data); err != nil {
			return fmt.Errorf("%s cannot be written: %w", f.Path, err)
		}
	}
	return nil
}

func writeNew(p string, data []byte) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

type docWriter struct {
	files []File
	used  map[string]bool // folded paths, so that case-insensitive file systems cannot merge two documents
	err   error
}

// add renders one document: the front matter, then the body.
func (w *docWriter) add(dir, name string, front *yaml.Node, body string) {
	if w.err != nil {
		return
	}
	var buf bytes.Buffer
	buf.WriteString("---\n")
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(front); err != nil {
		w.err = fmt.Errorf("%s %s cannot be written as YAML: %w", dir, name, err)
		return
	}
	if err := enc.Close(); err != nil {
		w.err = err
		return
	}
	buf.WriteString("---\n")
	if body = strings.TrimSpace(strings.ReplaceAll(body, "\r\n", "\n")); body != "" {
		buf.WriteString(body + "\n")
	}
	w.files = append(w.files, File{Path: w.path(dir, name), Data: buf.Bytes()})
}

// path returns a file path for a document's name, unique even where file
// names are compared ignoring case.
func (w *docWriter) path(dir, name string) string {
	base := fileName(name)
	p := dir + "/" + base + ".md"
	for i := 2; w.used[strings.ToLower(p)]; i++ {
		p = fmt.Sprintf("%s/%s_%d.md", dir, base, i)
	}
	w.used[strings.ToLower(p)] = true
	return p
}

// fileName folds a name or phrase to [a-z0-9_] (at most 60 characters);
// identifiers keep their spelling.
func fileName(name string) string {
	if domain.CheckIdent(name) == nil {
		return name
	}
	var b strings.Builder
	under := false
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
			under = false
		case !under && b.Len() > 0:
			b.WriteByte('_')
			under = true
		}
		if b.Len() >= 60 {
			break
		}
	}
	s := strings.TrimSuffix(b.String(), "_")
	if s == "" {
		s = "entry"
	}
	return s
}

func sortedBy[T any](xs []T, key func(T) string) []T {
	out := slices.Clone(xs)
	slices.SortStableFunc(out, func(a, b T) int { return strings.Compare(key(a), key(b)) })
	return out
}

// The node builders below spell each kind's front matter in a fixed key
// order, so that the same values always give the same bytes.

func modelNode(m domain.Model) *yaml.Node {
	n := mapping("kind", text("model"), "name", text(m.Name), "source", text(m.Source), "table", text(m.Table))
	if len(m.PrimaryKey) > 0 {
		put(n, "primary_key", strList(m.PrimaryKey, true))
	}
	plain := !slices.ContainsFunc(m.Columns, func(c domain.ModelColumn) bool {
		return c.Type != "" || c.Description != "" || c.Precision != 0 || c.Scale != nil
	})
	cols := seq(false)
	for _, c := range m.Columns {
		if plain {
			cols.Content = append(cols.Content, text(c.Name))
			continue
		}
		cn := mapping("name", text(c.Name))
		if c.Type != "" {
			put(cn, "type", text(string(c.Type)))
		}
		if c.Precision != 0 {
			put(cn, "precision", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(c.Precision)})
		}
		if c.Scale != nil {
			put(cn, "scale", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(*c.Scale)})
		}
		if c.Description != "" {
			put(cn, "description", text(c.Description))
		}
		cn.Style = yaml.FlowStyle
		cols.Content = append(cols.Content, cn)
	}
	if plain {
		cols.Style = yaml.FlowStyle
	}
	put(n, "columns", cols)
	if m.Audience != nil {
		put(n, "audience", audienceNode(*m.Audience))
	}
	return n
}

func relationshipNode(r domain.Relationship) *yaml.Node {
	return mapping("kind", text("relationship"), "name", text(r.Name),
		"origin", flow(mapping("model", text(r.Origin.Model), "column", text(r.Origin.Column))),
		"target", flow(mapping("model", text(r.Target.Model), "column", text(r.Target.Column))),
		"join_type", text(string(r.JoinType)))
}

func metricNode(m domain.Metric) *yaml.Node {
	n := mapping("kind", text("metric"), "name", text(m.Name), "model", text(m.Model))
	if m.Measure != nil {
		ms := mapping()
		if m.Measure.Simple != nil {
			put(ms, "simple", termNode(*m.Measure.Simple))
		}
		if r := m.Measure.Ratio; r != nil {
			put(ms, "ratio", mapping("numerator", termNode(r.Numerator), "denominator", termNode(r.Denominator),
				"zero_denominator", text(string(r.ZeroDenominator))))
		}
		put(n, "measure", ms)
	}
	if len(m.AuthoredSQL) > 0 {
		sql := mapping()
		dialects := make([]string, 0, len(m.AuthoredSQL))
		for d := range m.AuthoredSQL {
			dialects = append(dialects, d)
		}
		slices.Sort(dialects)
		for _, d := range dialects {
			put(sql, d, text(m.AuthoredSQL[d]))
		}
		put(n, "authored_sql", sql)
	}
	put(n, "time_column", text(m.TimeColumn))
	grains := make([]string, len(m.Grains))
	for i, g := range m.Grains {
		grains[i] = g.String()
	}
	put(n, "grains", strList(grains, true))
	dims := seq(false)
	for _, d := range m.Dimensions {
		dn := mapping("name", text(d.Name), "column", text(d.Column))
		switch len(d.Via) {
		case 0:
		case 1:
			put(dn, "via", text(d.Via[0]))
		default:
			put(dn, "via", strList(d.Via, true))
		}
		if d.Filterable {
			put(dn, "values", strList(d.Values, true))
		}
		if d.Description != "" {
			put(dn, "description", text(d.Description))
		}
		dims.Content = append(dims.Content, dn)
	}
	if len(dims.Content) == 0 {
		dims.Style = yaml.FlowStyle
	}
	put(n, "dimensions", dims)
	if len(m.RequiredFilters) > 0 {
		rf := seq(false)
		for _, f := range m.RequiredFilters {
			arg := mapping("column", text(f.Column))
			if f.Op == domain.Equals || f.Op == domain.NotEquals {
				put(arg, "value", text(f.Value))
			}
			rf.Content = append(rf.Content, mapping(string(f.Op), flow(arg)))
		}
		put(n, "required_filters", rf)
	}
	if a := m.Anchor; a != nil {
		put(n, "anchor", mapping("range", flow(mapping("start", text(a.Range.Start.String()), "end", text(a.Range.End.String()))),
			"value", text(a.Value)))
	}
	put(n, "audience", audienceNode(m.Audience))
	return n
}

func termNode(t domain.Term) *yaml.Node {
	if t.CountIf != "" {
		return flow(mapping("count_if", text(t.CountIf)))
	}
	return flow(mapping("aggregate", text(string(t.Aggregate)), "column", text(t.Column)))
}

func audienceNode(a domain.Audience) *yaml.Node {
	if a.Open() {
		return text("open")
	}
	return mapping("restricted", strList(a.Restricted, true))
}

func glossaryNode(g domain.Glossary) *yaml.Node {
	n := mapping("kind", text("glossary"), "term", text(g.Term))
	if len(g.Synonyms) > 0 {
		put(n, "synonyms", strList(g.Synonyms, false))
	}
	means := mapping("metric", text(g.Means.Metric))
	if g.Means.Dimension != "" {
		put(means, "dimension", text(g.Means.Dimension))
	}
	if g.Means.Value != "" {
		put(means, "value", text(g.Means.Value))
	}
	put(n, "means", flow(means))
	return n
}

func caveatNode(c domain.Caveat) *yaml.Node {
	about := seq(false)
	for _, ref := range c.About {
		metric, rest, hasDim := strings.Cut(ref, ".")
		dim, value, hasValue := strings.Cut(rest, "=")
		if !hasDim || !hasValue {
			about.Content = append(about.Content, text(ref))
			continue
		}
		about.Content = append(about.Content, flow(mapping("metric", text(metric), "dimension", text(dim), "value", text(value))))
	}
	return mapping("kind", text("caveat"), "name", text(c.Name), "about", about)
}

func notDefinedNode(n domain.NotDefined) *yaml.Node {
	out := mapping("kind", text("not_defined"), "phrase", text(n.Phrase))
	if len(n.Synonyms) > 0 {
		put(out, "synonyms", strList(n.Synonyms, false))
	}
	return out
}

// questionNode writes an example's question in its wire shape, the form
// the loader decodes with domain.DecodeQuestion.
func questionNode(q domain.Question) (*yaml.Node, error) {
	raw, err := json.Marshal(q)
	if err != nil {
		return nil, err
	}
	v, err := domain.DecodeJSON(raw)
	if err != nil {
		return nil, err
	}
	return wireNode(v), nil
}

func wireNode(v any) *yaml.Node {
	switch x := v.(type) {
	case domain.Object:
		n := mapping()
		for _, m := range x {
			put(n, m.Key, wireNode(m.Value))
		}
		return n
	case []any:
		n := seq(true)
		for _, item := range x {
			n.Content = append(n.Content, wireNode(item))
		}
		return n
	case json.Number:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: x.String()}
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: fmt.Sprint(x)}
	case string:
		return text(x)
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
}

func text(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

func seq(flowStyle bool) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	if flowStyle {
		n.Style = yaml.FlowStyle
	}
	return n
}

func strList(ss []string, flowStyle bool) *yaml.Node {
	n := seq(flowStyle)
	for _, s := range ss {
		n.Content = append(n.Content, text(s))
	}
	return n
}

// mapping builds a mapping from alternating keys and value nodes.
func mapping(kv ...any) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for i := 0; i+1 < len(kv); i += 2 {
		put(n, kv[i].(string), kv[i+1].(*yaml.Node))
	}
	return n
}

func put(n *yaml.Node, key string, v *yaml.Node) { n.Content = append(n.Content, text(key), v) }

func flow(n *yaml.Node) *yaml.Node {
	n.Style = yaml.FlowStyle
	return n
}
