package dbt

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"sutura.dev/adapters/importread"
	"sutura.dev/domain"
)

// manifestKeys are the top-level keys of the current semantic manifest
// shape (dbt's target/semantic_manifest.json).
var manifestKeys = []string{"semantic_models", "metrics", "project_configuration"}

// Read turns the files of a dbt project, or one semantic_manifest.json,
// into definitions and report entries.
//
// In a project, every YAML file may hold top-level semantic_models: and
// metrics: lists, or one semantic_model: or metric: per YAML document
// (both shapes may be mixed); metrics may use measures of semantic models
// in other files. A .json file must be a semantic manifest of the current
// shape, an object with semantic_models, metrics and project_configuration;
// any other shape is refused as a whole. Files with neither are skipped
// and listed.
//
// What maps onto the catalogue's closed vocabulary is imported exactly;
// every other construct gets an entry saying why it was refused. An input
// dbt itself would reject (a syntax error, a value of the wrong type, a
// missing or duplicate name, a metric over a measure that does not exist)
// is malformed: Read then returns errors, each an *importread.Error wrapping
// ErrMalformed, and no result.
func Read(files []importread.File) (*importread.Result, error) {
	errs := importread.NewErrors(ErrMalformed)
	p := newProject(errs)
	sorted := slices.Clone(files)
	slices.SortFunc(sorted, func(a, b importread.File) int { return strings.Compare(a.Path, b.Path) })
	for _, fl := range sorted {
		if fl.Data == nil {
			continue
		}
		ext := strings.ToLower(path.Ext(fl.Path))
		switch {
		case ext == ".json":
			p.readManifest(fl)
		case ext == ".yml" || ext == ".yaml":
			if path.Base(fl.Path) == "dbt_project.yml" {
				continue // project configuration: no definitions
			}
			p.readYAML(fl)
		}
		if errs.Len() > 0 {
			break
		}
	}
	if errs.Len() == 0 {
		p.build()
	}
	if errs.Len() > 0 {
		return nil, errs.Err()
	}
	if len(p.models) == 0 && len(p.metrics) == 0 {
		return nil, fmt.Errorf("%w: no file holds semantic_models, metrics, semantic_model or metric", ErrMalformed)
	}
	return p.result(), nil
}

// readManifest reads a semantic_manifest.json: the current shape, or
// nothing of it.
func (p *project) readManifest(fl importread.File) {
	docs, ok := p.errs.Parse(fl.Path, fl.Data)
	if !ok {
		return
	}
	if len(docs) != 1 || !docs[0].IsMap() {
		p.errs.Add(fl.Path, 1, "is not a dbt semantic manifest of the current shape: expected one JSON object with "+strings.Join(manifestKeys, ", "))
		return
	}
	root := docs[0]
	for _, k := range manifestKeys {
		if _, ok := root.Get(k); !ok {
			p.errs.Add(fl.Path, 1, "is not a dbt semantic manifest of the current shape (an older or unknown one): expected an object with "+
				strings.Join(manifestKeys, ", ")+"; "+k+" is missing")
			return
		}
	}
	for _, sm := range root.List("semantic_models") {
		p.addModel(sm)
	}
	for _, m := range root.List("metrics") {
		p.addMetric(m)
	}
	p.others(root, "saved_queries", "project_configuration")
}

// readYAML reads one YAML file of a project.
func (p *project) readYAML(fl importread.File) {
	docs, ok := p.errs.Parse(fl.Path, fl.Data)
	if !ok {
		return
	}
	found := false
	for _, doc := range docs {
		if !doc.IsMap() {
			continue
		}
		if sm, ok := doc.Get("semantic_model"); ok {
			p.addModel(sm)
			found = true
		}
		if m, ok := doc.Get("metric"); ok {
			p.addMetric(m)
			found = true
		}
		if v, ok := doc.Get("semantic_models"); ok {
			found = true
			if !v.IsNull() && !v.IsList() {
				v.Fail("must be a list")
			}
			for _, sm := range v.Items() {
				p.addModel(sm)
			}
		}
		if v, ok := doc.Get("metrics"); ok && (v.IsList() || v.IsNull()) {
			// A metrics: mapping is configuration (dbt_project.yml style), not definitions.
			found = true
			for _, m := range v.Items() {
				p.addMetric(m)
			}
		}
		if p.others(doc, "saved_queries", "saved_query", "project_configuration") {
			found = true
		}
	}
	if !found {
		p.entries = append(p.entries, importread.Entry{Kind: "file", Name: "", File: fl.Path, Status: importread.Ignored,
			Reason: "holds no semantic_models, metrics, semantic_model or metric"})
	}
}

// others lists the constructs of a document that hold no definitions:
// saved queries (questions, not definitions) and the project
// configuration (time spines, which sutura's grains do not need).
func (p *project) others(doc node, keys ...string) bool {
	found := false
	for _, k := range keys {
		v, ok := doc.Get(k)
		if !ok {
			continue
		}
		found = true
		switch k {
		case "project_configuration":
			p.entries = append(p.entries, importread.Entry{Kind: "project_configuration", File: v.File(), Line: v.Line(), Status: importread.Ignored,
				Reason: "time spines and project settings carry no definitions; sutura buckets time itself"})
		default:
			qs := v.Items()
			if !v.IsList() {
				qs = []node{v}
			}
			for _, q := range qs {
				name := q.Str("name")
				p.entries = append(p.entries, importread.Entry{Kind: "saved_query", Name: name, File: q.File(), Line: q.Line(), Status: importread.Refused,
					Reason: "a saved query is a question, not a definition; ask it of the imported metrics instead"})
			}
		}
	}
	return found
}

// bareColumn reports whether an expr is a column name and nothing else
// (an identifier; a quoted one would change how the database matches it).
func bareColumn(expr string) (string, bool) {
	e := strings.TrimSpace(expr)
	if domain.CheckIdent(e) != nil {
		return "", false
	}
	return e, true
}

// The forms of a time dimension's expr that are one column at day
// granularity (docs/importing.md lists them): cast(c as date), c::date,
// date(c) and date_trunc('day', c), in any letter case, the column bare
// or double-quoted.
var dayForms = []*regexp.Regexp{
	regexp.MustCompile(`(?i)^cast\s*\(\s*("?)([A-Za-z_][A-Za-z0-9_]*)("?)\s+as\s+date\s*\)$`),
	regexp.MustCompile(`(?i)^("?)([A-Za-z_][A-Za-z0-9_]*)("?)\s*::\s*date$`),
	regexp.MustCompile(`(?i)^date\s*\(\s*("?)([A-Za-z_][A-Za-z0-9_]*)("?)\s*\)$`),
	regexp.MustCompile(`(?i)^date_trunc\s*\(\s*'day'\s*,\s*("?)([A-Za-z_][A-Za-z0-9_]*)("?)\s*\)$`),
}

// dayColumn reads a time dimension's expr that only casts or truncates one
// column to a date or a day (see dayForms): grouping by the column at day
// granularity, as sutura does, computes the same periods.
func dayColumn(expr string) (string, bool) {
	e := strings.TrimSpace(expr)
	for _, f := range dayForms {
		m := f.FindStringSubmatch(e)
		if m == nil || m[1] != m[3] || domain.CheckIdent(m[2]) != nil {
			continue
		}
		return m[2], true
	}
	return "", false
}
