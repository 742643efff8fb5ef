package osi

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"sutura.dev/adapters/importread"
	"sutura.dev/domain"
)

// versionForm is the spec versions Read accepts: 0.x (Apache Ossie, with
// a top-level version) and 1.0 (the first OSI release, with none).
var versionForm = regexp.MustCompile(`^(0\.[0-9]+(\.[0-9]+)?([.-]?[A-Za-z0-9.]*)?|1\.0(\.[0-9]+)?)$`)

// Read turns an Open Semantic Interchange (Apache Ossie) semantic model —
// one YAML file, or every YAML file of a directory — into definitions and
// report entries.
//
// A file holds semantic_model: a list of semantic models, each with
// datasets, relationships and metrics, under spec version 0.x (a
// top-level version:) or 1.0 (no version). Expressions are read from the
// ANSI_SQL dialect entry only. What maps onto the catalogue's closed
// vocabulary is imported exactly; every other construct gets an entry
// saying why it was refused. A file another spec version, or a model the
// specification does not allow (a syntax error, a value of the wrong type,
// a missing or duplicate name, a reference to a dataset or field that does
// not exist), is malformed: Read then returns errors, each an
// *importread.Error wrapping ErrMalformed, and no result.
func Read(files []importread.File) (*importread.Result, error) {
	errs := importread.NewErrors(ErrMalformed)
	s := &semantic{errs: errs, datasets: map[string]*dataset{}, metricNames: map[string]int{}}
	sorted := slices.Clone(files)
	slices.SortFunc(sorted, func(a, b importread.File) int { return strings.Compare(a.Path, b.Path) })
	for _, fl := range sorted {
		ext := strings.ToLower(path.Ext(fl.Path))
		if fl.Data == nil || (ext != ".yml" && ext != ".yaml") {
			continue
		}
		s.readFile(fl)
		if errs.Len() > 0 {
			break
		}
	}
	if errs.Len() == 0 {
		if len(s.order) == 0 {
			return nil, fmt.Errorf("%w: no YAML file holds semantic_model:", ErrMalformed)
		}
		s.build()
	}
	if errs.Len() > 0 {
		return nil, errs.Err()
	}
	return s.result(), nil
}

// semantic is the semantic models being read, flattened: datasets,
// relationships and metrics.
type semantic struct {
	errs        *importread.Errors
	order       []*dataset
	datasets    map[string]*dataset
	rels        []*relationship
	metrics     []*metric
	metricNames map[string]int // name → how many metrics carry it
	entries     []importread.Entry
	out         result
}

type result struct {
	rels     []domain.Relationship
	metrics  []domain.Metric
	glossary []domain.Glossary
	phrases  map[string]string // folded phrase → the metric it means
}

// dataset is one dataset as read.
type dataset struct {
	n                        node
	name, table, description string
	entry                    int
	fields                   []*field
	pk                       []string
	refused                  string
	columns                  []string
	types                    map[string]domain.ColumnType
	timeColumn, timeWhy      string
	timeType                 domain.ColumnType
}

// field is one field of a dataset.
type field struct {
	n                           node
	name, column, description   string
	datatype                    domain.ColumnType
	dimension, isTime, temporal bool
	timeOfDay                   bool
	entry                       int
	refused                     string
}

type relationship struct {
	n                    node
	name, from, to       string
	fromCols, toCols     []string
	entry                int
	fromColumn, toColumn string
}

func (s *semantic) entry(e importread.Entry) int {
	s.entries = append(s.entries, e)
	return len(s.entries) - 1
}

func (s *semantic) refuse(i int, reason string) {
	s.entries[i].Status, s.entries[i].Reason, s.entries[i].Output = importread.Refused, reason, ""
}

func (s *semantic) note(i int, note string) {
	s.entries[i].Notes = append(s.entries[i].Notes, note)
}

// readFile reads one file's semantic models.
func (s *semantic) readFile(fl importread.File) {
	docs, ok := s.errs.Parse(fl.Path, fl.Data)
	if !ok {
		return
	}
	found := false
	for _, doc := range docs {
		if !doc.IsMap() {
			continue
		}
		sm, ok := doc.Get("semantic_model")
		if !ok {
			continue
		}
		found = true
		if v, ok := doc.Get("version"); ok {
			ver, _ := v.Text()
			if !versionForm.MatchString(strings.TrimSpace(ver)) {
				v.Fail("is a spec version sutura does not read: it reads OSI / Apache Ossie 0.x and 1.0")
				return
			}
		}
		for _, k := range doc.Keys() {
			if k != "semantic_model" && k != "version" {
				s.entry(importread.Entry{Kind: "key", Name: safeKey(k), File: fl.Path, Line: doc.Line(), Status: importread.Ignored,
					Reason: "a top-level key beside semantic_model carries no definitions sutura reads"})
			}
		}
		items := sm.Items()
		if !sm.IsList() {
			if !sm.IsMap() {
				sm.Fail("must be a list of semantic models")
				return
			}
			items = []node{sm}
		}
		for _, m := range items {
			s.readModel(m)
		}
	}
	if !found {
		s.entry(importread.Entry{Kind: "file", File: fl.Path, Status: importread.Ignored, Reason: "holds no semantic_model:"})
	}
}

// modelKeys are the keys of a semantic model sutura reads or lists.
var modelKeys = []string{"name", "description", "ai_context", "datasets", "relationships", "metrics", "custom_extensions"}

// readModel reads one semantic model: its datasets, relationships and
// metrics join the ones read before.
func (s *semantic) readModel(n node) {
	name, ok := n.Named("a semantic model")
	if !ok {
		return
	}
	e := s.entry(importread.Entry{Kind: "semantic_model", Name: name, File: n.File(), Line: n.Line(), Status: importread.Ignored,
		Reason: "a semantic model is a container; its datasets, relationships and metrics are listed one by one"})
	if ctx := aiContextText(n); ctx != "" {
		s.note(e, "its ai_context (instructions for agents) is not carried; write what agents must know as caveats")
	}
	for _, k := range n.Keys() {
		if !slices.Contains(modelKeys, k) {
			s.note(e, "key "+safeKey(k)+" is not read")
		}
	}
	for _, d := range n.List("datasets") {
		s.readDataset(d)
	}
	for _, r := range n.List("relationships") {
		s.readRelationship(r)
	}
	for _, m := range n.List("metrics") {
		s.readMetric(m, nil)
	}
	s.extensions(n, name)
}

// extensions lists a construct's custom_extensions: vendor data, read by
// no one here.
func (s *semantic) extensions(n node, owner string) {
	for _, x := range n.List("custom_extensions") {
		s.entry(importread.Entry{Kind: "custom_extension", Name: owner, File: x.File(), Line: x.Line(), Status: importread.Ignored,
			Reason: "vendor-specific data carries no definitions sutura reads"})
	}
}

// datasetKeys are the keys of a dataset sutura reads or lists.
var datasetKeys = []string{"name", "source", "primary_key", "unique_keys", "description", "ai_context", "fields", "metrics", "custom_extensions"}

func (s *semantic) readDataset(n node) {
	if !n.IsMap() {
		n.Fail("must be a mapping (a dataset)")
		return
	}
	name, source := n.Str("name"), n.Str("source")
	if name == "" || source == "" {
		n.Fail("a dataset needs a name and a source")
		return
	}
	if first, dup := s.datasets[name]; dup {
		n.Fail(fmt.Sprintf("names a dataset again (first at %s:%d)", s.entries[first.entry].File, s.entries[first.entry].Line))
		return
	}
	d := &dataset{n: n, name: name, description: n.Str("description"), types: map[string]domain.ColumnType{}}
	d.entry = s.entry(importread.Entry{Kind: "dataset", Name: name, File: n.File(), Line: n.Line(), Output: "model:" + name})
	s.datasets[name] = d
	s.order = append(s.order, d)
	if domain.CheckIdent(name) != nil {
		d.refused = "the name is not an identifier"
	}
	if t, ok := importread.TablePath(source); ok {
		d.table = t
	} else if d.refused == "" {
		d.refused = "its source is a query or not a table path sutura can name (t, schema.t or db.schema.t, each an identifier)"
	}
	for _, k := range n.Keys() {
		if !slices.Contains(datasetKeys, k) {
			s.note(d.entry, "key "+safeKey(k)+" is not read")
		}
	}
	if pk, ok := n.Get("primary_key"); ok && !pk.IsNull() {
		if !pk.IsList() {
			pk.Fail("must be a list of columns")
		}
		for _, c := range pk.Items() {
			col, _ := c.Text()
			d.pk = append(d.pk, col)
		}
	}
	if ctx := aiContextText(n); ctx != "" {
		s.note(d.entry, "its ai_context is not carried: glossary entries mean metrics, and a dataset is none")
	}
	for _, f := range n.List("fields") {
		s.readField(d, f)
	}
	for _, m := range n.List("metrics") {
		s.readMetric(m, d)
	}
	s.extensions(n, name)
}

// datatypes maps OSI's logical data types onto column types; Time (a time
// of day) and Opaque have none.
var datatypes = map[string]domain.ColumnType{"String": domain.TypeText, "Integer": domain.TypeInteger, "Decimal": domain.TypeDecimal,
	"Float": domain.TypeFloat, "Boolean": domain.TypeBoolean, "Date": domain.TypeDate, "DateTime": domain.TypeTimestamp,
	"DateTimeTz": domain.TypeTimestamp, "Time": "", "Opaque": ""}

// fieldKeys are the keys of a field sutura reads or lists.
var fieldKeys = []string{"name", "expression", "dimension", "label", "description", "datatype", "ai_context", "custom_extensions"}

func (s *semantic) readField(d *dataset, n node) {
	name, ok := n.Named("a field")
	if !ok {
		return
	}
	for _, prev := range d.fields {
		if prev.name == name {
			n.Fail("names a field of dataset " + d.name + " again")
			return
		}
	}
	f := &field{n: n, name: name, description: n.Str("description")}
	f.entry = s.entry(importread.Entry{Kind: "field", Name: d.name + "." + name, File: n.File(), Line: n.Line()})
	d.fields = append(d.fields, f)
	if dt := n.Str("datatype"); dt != "" {
		t, ok := datatypes[dt]
		if !ok {
			n.Fail("datatype is not one of the specification's data types")
			return
		}
		f.datatype = t
		f.temporal = dt == "Date" || dt == "DateTime" || dt == "DateTimeTz" || dt == "Time"
		f.timeOfDay = dt == "Time"
	}
	if dim, ok := n.Object("dimension"); ok {
		f.dimension = true
		if v, ok := dim.Get("is_time"); ok && !v.IsNull() {
			t, _ := v.Text()
			f.isTime = strings.EqualFold(t, "true")
		} else {
			f.isTime = f.temporal // 0.x: unset is_time follows a temporal datatype
		}
	}
	for _, k := range n.Keys() {
		if !slices.Contains(fieldKeys, k) {
			s.note(f.entry, "key "+safeKey(k)+" is not read")
		}
	}
	if n.Str("label") != "" {
		s.note(f.entry, "its label (a category for display) is not carried")
	}
	expr, why := ansiSQL(n, "expression")
	switch {
	case why != "":
		f.refused = why
	case domain.CheckIdent(name) != nil:
		f.refused = "the name is not an identifier"
	default:
		col, ok := bareColumn(expr, d.name)
		if !ok {
			f.refused = "its expression is computed, not a column"
		} else {
			f.column = col
		}
	}
	if aiContextText(n) != "" {
		s.note(f.entry, "its ai_context is not carried: glossary entries mean metrics, and a field is none")
	}
	s.extensions(n, d.name+"."+name)
}

// bareColumn reads an expression that is a column and nothing else: col,
// or dataset.col for the dataset's own name.
func bareColumn(expr, dataset string) (string, bool) {
	e := strings.TrimSpace(expr)
	if q, rest, ok := strings.Cut(e, "."); ok && q == dataset {
		e = rest
	}
	if domain.CheckIdent(e) != nil {
		return "", false
	}
	return e, true
}

// ansiSQL reads the ANSI_SQL entry of an expression, in each shape the
// specification has used: {dialects: [{dialect, expression}]}, the list
// [{dialect, expression}], and a bare string (ANSI_SQL by default).
func ansiSQL(n node, key string) (string, string) {
	v, ok := n.Get(key)
	if !ok || v.IsNull() {
		n.Fail("has no " + key)
		return "", "it has no expression"
	}
	if s, ok := v.Text(); ok {
		return s, ""
	}
	entries := v.Items()
	if v.IsMap() {
		entries = v.List("dialects")
	} else if !v.IsList() {
		v.Fail("must be an expression: {dialects: [...]}, a list of dialect entries, or text")
		return "", "it has no expression"
	}
	for _, e := range entries {
		if !strings.EqualFold(e.Str("dialect"), "ANSI_SQL") {
			continue
		}
		if x := e.Str("expression"); x != "" {
			return x, ""
		}
		if agg, in := e.Str("aggregation_type"), e.Str("input_expr"); agg != "" && in != "" {
			return agg + "(" + in + ")", "" // a draft spelling of one aggregate
		}
		e.Fail("has no expression")
		return "", "its ANSI_SQL entry has no expression"
	}
	return "", "it has no ANSI_SQL expression; only the ANSI_SQL dialect is read"
}

// safeKey names a key of the input in a note: itself when it is an
// identifier, otherwise a description (the key is input text).
func safeKey(k string) string {
	if domain.CheckIdent(k) == nil {
		return k
	}
	return "(a key that is not an identifier)"
}

func (s *semantic) readRelationship(n node) {
	if !n.IsMap() {
		n.Fail("must be a mapping (a relationship)")
		return
	}
	r := &relationship{n: n, name: n.Str("name"), from: n.Str("from"), to: n.Str("to")}
	if r.name == "" || r.from == "" || r.to == "" {
		n.Fail("a relationship needs a name, from and to")
		return
	}
	for _, prev := range s.rels {
		if prev.name == r.name {
			n.Fail("names a relationship again")
			return
		}
	}
	for _, k := range []string{"from_columns", "to_columns"} {
		v, ok := n.Get(k)
		if !ok || !v.IsList() || len(v.Items()) == 0 {
			n.Fail(k + " must list at least one column")
			return
		}
		var cols []string
		for _, c := range v.Items() {
			col, ok := c.Text()
			if !ok {
				c.Fail("must be a column name")
				return
			}
			cols = append(cols, col)
		}
		if k == "from_columns" {
			r.fromCols = cols
		} else {
			r.toCols = cols
		}
	}
	if len(r.fromCols) != len(r.toCols) {
		n.Fail("from_columns and to_columns must list as many columns")
		return
	}
	r.entry = s.entry(importread.Entry{Kind: "relationship", Name: r.name, File: n.File(), Line: n.Line(), Output: "relationship:" + r.name})
	s.rels = append(s.rels, r)
	if aiContextText(n) != "" {
		s.note(r.entry, "its ai_context is not carried")
	}
	s.extensions(n, r.name)
}
