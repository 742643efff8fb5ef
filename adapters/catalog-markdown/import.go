package mdcatalog

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"sutura.dev/domain"
)

// ImportReportName is the file, at the root of a catalogue written by an
// import, that lists what the import read and what became of it. Load
// skips it: it is a report for people, not a document.
const ImportReportName = "IMPORT-REPORT.md"

// The statuses of an import entry.
const (
	ImportImported = "imported" // it became a definition (Became says which)
	ImportRefused  = "refused"  // it cannot be expressed exactly (Reason says why)
	ImportIgnored  = "ignored"  // it carries no meaning sutura keeps (Reason says why): presentation, caching
)

// Imported is what an importer read from another semantic layer, already
// in the catalogue's vocabulary: models, relationships and metrics (the
// metrics without dimensions), the categorical dimensions of each model,
// glossary entries, and one entry per construct read. AssembleImport turns
// it into a catalogue.
type Imported struct {
	// Format names the input's format in the report: dbt, cube or osi.
	Format string
	// Definitions hold the models, relationships and metrics. Sources and
	// audiences are set by AssembleImport; metric dimensions are derived
	// from Dimensions.
	Definitions domain.Definitions
	// Dimensions are the categorical dimensions of each model; their
	// columns are declared by the model.
	Dimensions []ImportedDimension
	// Glossary holds the glossary entries the input's synonyms give.
	Glossary []domain.Glossary
	// Entries list every construct read, in input order.
	Entries []ImportEntry
}

// ImportedDimension is one categorical dimension of a model, named as in
// the input.
type ImportedDimension struct {
	Model       string
	Name        string
	Column      string
	Description string
}

// ImportEntry is one construct of the input and what became of it.
type ImportEntry struct {
	Kind   string   // the input's word for it: metric, measure, cube, dataset, ...
	Name   string   // its name in the input (cube.measure for a Cube measure)
	File   string   // the input file, slash-separated, relative to the input
	Line   int      // 1-based line in File, 0 when unknown
	Output string   // the definition it became, "metric:<name>", "model:<name>", "relationship:<name>", "glossary:<term>" or "dimension:<model>.<name>"; empty for none
	Status string   // ImportImported, ImportRefused or ImportIgnored
	Became string   // for an imported entry: what it became, in words
	Reason string   // for a refused or ignored entry: why
	Notes  []string // what a reviewer should know besides
}

// ImportOptions are the choices of an import that the input does not make.
type ImportOptions struct {
	// Source is the source alias every model gets; "" means "warehouse".
	Source string
	// Audience is the one audience id every metric is restricted to, so
	// that nothing imported is visible before a person has reviewed it;
	// "" means "review".
	Audience string
	// Input names the input in the report (a path as the user gave it).
	Input string
}

// The defaults of ImportOptions.
const (
	DefaultImportSource   = "warehouse"
	DefaultImportAudience = "review"
)

// ImportResult is an assembled import: the bundle its documents load to,
// the documents and the report as files, and the final entries.
type ImportResult struct {
	Bundle  *domain.Bundle // nil when no definition was imported
	Files   []File         // the documents, then ImportReportName
	Entries []ImportEntry
	Metrics int // metrics imported
}

// AssembleImport completes an import and renders it: every model gets the
// source, every metric the audience; each metric gets as dimensions the
// categorical dimensions of its model and of the models reached from it
// through many_to_one relationships (the one on a joined model renamed
// <model>_<name> when two share a name); and whatever then fails the
// catalogue's consistency check (domain.Check) is left out, with the
// check's reason in its entry, until the rest is consistent. The result
// loads and pins with Load as it is, and the same input gives the same
// bytes.
func AssembleImport(imp Imported, opts ImportOptions) (*ImportResult, error) {
	if opts.Source == "" {
		opts.Source = DefaultImportSource
	}
	if opts.Audience == "" {
		opts.Audience = DefaultImportAudience
	}
	if err := domain.CheckIdent(opts.Source); err != nil {
		return nil, fmt.Errorf("the source alias %w", err)
	}
	if err := domain.CheckIdent(opts.Audience); err != nil {
		return nil, fmt.Errorf("the audience id %w", err)
	}
	a := newAssembly(imp, opts)
	defs, k, err := a.settle()
	if err != nil {
		return nil, err
	}
	res := &ImportResult{Entries: a.entries}
	var docs []File
	if len(defs.Models)+len(defs.Relationships)+len(defs.Metrics)+len(k.Glossary) > 0 {
		b, err := domain.NewBundle("import", defs, k)
		if err != nil {
			return nil, fmt.Errorf("the assembled import is not consistent: %w", err)
		}
		res.Bundle, res.Metrics = b, len(b.Definitions().Metrics)
		if docs, err = Documents(*b.Definitions(), *b.Knowledge()); err != nil {
			return nil, err
		}
	}
	res.Files = append(docs, File{Path: ImportReportName, Data: renderReport(imp.Format, opts, res.Entries)})
	return res, nil
}

// assembly holds an import while it is completed: what is still in, and
// the entries that say what became of everything.
type assembly struct {
	opts     ImportOptions
	entries  []ImportEntry
	byOutput map[string]int // Output → index in entries
	models   []domain.Model
	rels     []domain.Relationship
	metrics  []domain.Metric
	dims     []ImportedDimension
	dimsBy   map[string][]ImportedDimension // model → its dimensions
	glossary []domain.Glossary
	out      map[string]string            // "model:x", ... → the reason it was left out
	dropDims map[string]map[string]string // metric → dimension → why it was left out
	used     map[string][]use             // "dimension:<model>.<name>" → the metrics it is a dimension of, for the last build
	notes    map[string][]string          // output → notes of the last build
	dropped  map[string]string            // "dimension:<model>.<name>" → why the check refused it, for the last build
}

func newAssembly(imp Imported, opts ImportOptions) *assembly {
	a := &assembly{opts: opts, entries: slices.Clone(imp.Entries), byOutput: map[string]int{},
		models: slices.Clone(imp.Definitions.Models), rels: slices.Clone(imp.Definitions.Relationships),
		metrics: slices.Clone(imp.Definitions.Metrics), dims: imp.Dimensions, glossary: slices.Clone(imp.Glossary),
		out: map[string]string{}, dropDims: map[string]map[string]string{}}
	for i, e := range a.entries {
		if e.Output != "" {
			a.byOutput[e.Output] = i
		}
	}
	a.dimsBy = map[string][]ImportedDimension{}
	for _, d := range a.dims {
		a.dimsBy[d.Model] = append(a.dimsBy[d.Model], d)
	}
	for i := range a.models {
		a.models[i].Source = opts.Source
	}
	for i := range a.metrics {
		a.metrics[i].Audience = domain.Audience{Restricted: []string{opts.Audience}}
	}
	return a
}

// settle builds the catalogue from what is still in, checks it, leaves out
// what the check refuses, and repeats until the check passes. Every round
// leaves out at least one thing, so it ends.
func (a *assembly) settle() (domain.Definitions, domain.Knowledge, error) {
	limit := len(a.models) + len(a.rels) + len(a.metrics) + len(a.glossary) + len(a.dims) + 2
	for range limit {
		defs, k := a.build()
		probs := domain.Check(&defs, &k)
		if len(probs) == 0 {
			a.describe()
			return defs, k, nil
		}
		// Models and relationships first: what depends on them is then
		// left out for their reason rather than for its own symptom.
		slices.SortStableFunc(probs, func(x, y *domain.Problem) int { return problemRank(x) - problemRank(y) })
		for _, p := range probs {
			a.refuseProblem(p, defs, k)
		}
	}
	return domain.Definitions{}, domain.Knowledge{}, errors.New("the import could not be made consistent")
}

// build returns the definitions and knowledge still in, with each metric's
// dimensions derived afresh.
func (a *assembly) build() (domain.Definitions, domain.Knowledge) {
	var defs domain.Definitions
	var k domain.Knowledge
	for _, m := range a.models {
		if _, gone := a.out["model:"+m.Name]; !gone {
			defs.Models = append(defs.Models, m)
		}
	}
	for _, r := range a.rels {
		if _, gone := a.out["relationship:"+r.Name]; gone {
			continue
		}
		if end, gone := a.goneModel(r.Origin.Model, r.Target.Model); gone {
			a.leaveOut("relationship:"+r.Name, "its model "+end+" is not imported")
			continue
		}
		defs.Relationships = append(defs.Relationships, r)
	}
	a.used, a.notes, a.dropped = map[string][]use{}, map[string][]string{}, map[string]string{}
	tables := map[string]bool{}
	for _, m := range defs.Models {
		tables[domain.FoldIdent(m.BareTable())] = true
	}
	g := newGraph(defs.Relationships)
	for _, m := range a.metrics {
		if _, gone := a.out["metric:"+m.Name]; gone {
			continue
		}
		if _, gone := a.out["model:"+m.Model]; gone {
			a.leaveOut("metric:"+m.Name, fmt.Sprintf("its model %s is not imported", m.Model))
			continue
		}
		m.Dimensions = a.dimensionsOf(m, g, tables)
		defs.Metrics = append(defs.Metrics, m)
	}
	for _, g := range a.glossary {
		if _, gone := a.out["glossary:"+g.Term]; !gone {
			k.Glossary = append(k.Glossary, g)
		}
	}
	return defs, k
}

// goneModel returns the first of models that is left out.
func (a *assembly) goneModel(models ...string) (string, bool) {
	for _, m := range models {
		if _, gone := a.out["model:"+m]; gone {
			return m, true
		}
	}
	return "", false
}

// use is one metric a dimension became a dimension of, under a name.
type use struct{ name, metric string }

// describeUses says which metrics a dimension became a dimension of,
// grouping the metrics that know it by the same name.
func describeUses(uses []use) string {
	var names []string
	byName := map[string][]string{}
	for _, u := range uses {
		if _, seen := byName[u.name]; !seen {
			names = append(names, u.name)
		}
		byName[u.name] = append(byName[u.name], u.metric)
	}
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s of metric %s", n, strings.Join(byName[n], ", "))
		if i > 0 {
			parts[i] = "as " + parts[i]
		}
	}
	return "group-by dimension " + strings.Join(parts, "; ")
}

// reach is one model a metric's dimensions may come from, and the chain of
// relationships that leads there.
type reach struct {
	model string
	via   []string
}

// graph holds the relationships by the models they touch, each model's in
// name order.
type graph map[string][]domain.Relationship

func newGraph(rels []domain.Relationship) graph {
	g := graph{}
	for _, r := range sortedBy(rels, func(r domain.Relationship) string { return r.Name }) {
		g[r.Origin.Model] = append(g[r.Origin.Model], r)
		if r.Target.Model != r.Origin.Model {
			g[r.Target.Model] = append(g[r.Target.Model], r)
		}
	}
	return g
}

// reached lists the models reached from model through many_to_one steps,
// breadth first (the shortest chain wins; relationships are tried in name
// order, so the result is deterministic), the model itself first.
func (g graph) reached(model string) []reach {
	out := []reach{{model: model}}
	seen := map[string]bool{model: true}
	for i := 0; i < len(out); i++ {
		for _, r := range g[out[i].model] {
			to, jt, ok := domain.Step(&r, out[i].model)
			if !ok || jt != domain.ManyToOne || seen[to] {
				continue
			}
			seen[to] = true
			out = append(out, reach{model: to, via: append(slices.Clone(out[i].via), r.Name)})
		}
	}
	return out
}

// dimensionsOf derives a metric's dimensions: the categorical dimensions of
// its model, then those of each model reached from it. A name that would
// clash (with another dimension, the metric, a reserved label or a table)
// becomes <model>_<name>; one that still clashes is left out with a note.
func (a *assembly) dimensionsOf(m domain.Metric, g graph, tables map[string]bool) []domain.Dimension {
	taken := map[string]bool{domain.FoldIdent(m.Name): true}
	for _, r := range domain.ReservedLabels {
		taken[r] = true
	}
	free := func(name string) bool {
		f := domain.FoldIdent(name)
		return domain.CheckIdent(name) == nil && !taken[f] && !tables[f]
	}
	var out []domain.Dimension
	for _, r := range g.reached(m.Model) {
		for _, d := range a.dimsBy[r.model] {
			key := "dimension:" + d.Model + "." + d.Name
			if _, gone := a.out[key]; gone {
				continue
			}
			name := d.Name
			if !free(name) {
				name = d.Model + "_" + d.Name
			}
			if reason, dropped := a.dropDims[m.Name][name]; dropped {
				a.note("metric:"+m.Name, fmt.Sprintf("dimension %s (from model %s) is left out: %s", name, d.Model, reason))
				a.dropped[key] = reason
				continue
			}
			if !free(name) {
				a.note("metric:"+m.Name, fmt.Sprintf("dimension %s of model %s is left out: its name, and %s_%s, clash with another dimension, the metric, a reserved label or a table name", d.Name, d.Model, d.Model, d.Name))
				continue
			}
			taken[domain.FoldIdent(name)] = true
			if name != d.Name {
				a.note("metric:"+m.Name, fmt.Sprintf("dimension %s of model %s is called %s here: the name %s is taken by another dimension, the metric, a reserved label or a table", d.Name, d.Model, name, d.Name))
			}
			out = append(out, domain.Dimension{Name: name, Column: d.Column, Via: r.via, Description: d.Description})
			a.used[key] = append(a.used[key], use{name: name, metric: m.Name})
		}
	}
	return out
}

// refuseProblem leaves out what a consistency problem is about.
func (a *assembly) refuseProblem(p *domain.Problem, defs domain.Definitions, k domain.Knowledge) {
	why := "the catalogue check refuses it"
	if p.Key != "" {
		why += " (" + p.Key + ")"
	}
	why += ": " + p.Reason
	switch p.Kind {
	case "model":
		a.leaveOut(p.Kind+":"+p.Name, why)
	case "relationship":
		for _, r := range defs.Relationships {
			if _, gone := a.goneModel(r.Origin.Model, r.Target.Model); gone && r.Name == p.Name {
				return // its model's refusal says why, next round
			}
		}
		a.leaveOut(p.Kind+":"+p.Name, why)
	case "glossary":
		for _, g := range k.Glossary {
			if _, gone := a.out["metric:"+g.Means.Metric]; gone && g.Term == p.Name {
				why = "the metric " + g.Means.Metric + " it means is not imported"
			}
		}
		a.leaveOut(p.Kind+":"+p.Name, why)
	case "metric":
		for _, m := range defs.Metrics {
			if _, gone := a.out["model:"+m.Model]; gone && m.Name == p.Name {
				return // its model's refusal says why, next round
			}
		}
		if idx, ok := dimensionIndex(p.Key); ok {
			for _, m := range defs.Metrics {
				if m.Name == p.Name && idx < len(m.Dimensions) {
					if a.dropDims[m.Name] == nil {
						a.dropDims[m.Name] = map[string]string{}
					}
					a.dropDims[m.Name][m.Dimensions[idx].Name] = p.Reason
					return
				}
			}
		}
		a.leaveOut("metric:"+p.Name, why)
	case "knowledge":
		// All glossary text together is over the limit: leave out the
		// last entry and try again.
		if n := len(k.Glossary); n > 0 {
			a.leaveOut("glossary:"+k.Glossary[n-1].Term, "all knowledge text together would be over the 32 KiB a catalogue may hold")
		}
	default:
		a.leaveOut(p.Kind+":"+p.Name, why)
	}
}

func problemRank(p *domain.Problem) int {
	switch p.Kind {
	case "model":
		return 0
	case "relationship":
		return 1
	case "metric":
		return 2
	}
	return 3
}

// dimensionIndex reads i from a key dimensions[i]...
func dimensionIndex(key string) (int, bool) {
	rest, ok := strings.CutPrefix(key, "dimensions[")
	if !ok {
		return 0, false
	}
	num, _, ok := strings.Cut(rest, "]")
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(num)
	return i, err == nil
}

// leaveOut takes a definition out of the import and marks its entry
// refused with the reason.
func (a *assembly) leaveOut(output, reason string) {
	if _, done := a.out[output]; done {
		return
	}
	a.out[output] = reason
	if i, ok := a.byOutput[output]; ok {
		e := &a.entries[i]
		e.Status, e.Became, e.Reason = ImportRefused, "", reason
	}
	if model, ok := strings.CutPrefix(output, "model:"); ok {
		for _, d := range a.dimsBy[model] {
			a.leaveOut("dimension:"+d.Model+"."+d.Name, "its model "+model+" is not imported")
		}
	}
}

func (a *assembly) note(output, note string) {
	if !slices.Contains(a.notes[output], note) {
		a.notes[output] = append(a.notes[output], note)
	}
}

// describe says, in each imported dimension's entry, which metrics it
// became a dimension of, and adds the notes of the final build to the
// entries still imported.
func (a *assembly) describe() {
	for out, notes := range a.notes {
		if i, ok := a.byOutput[out]; ok && a.entries[i].Status == ImportImported {
			a.entries[i].Notes = append(a.entries[i].Notes, notes...)
		}
	}
	for _, d := range a.dims {
		key := "dimension:" + d.Model + "." + d.Name
		i, ok := a.byOutput[key]
		if !ok || a.entries[i].Status != ImportImported {
			continue
		}
		if uses := a.used[key]; len(uses) > 0 {
			a.entries[i].Became = describeUses(uses)
		} else if reason, dropped := a.dropped[key]; dropped {
			a.entries[i].Status, a.entries[i].Reason = ImportRefused, "the catalogue check refuses it: "+reason
		} else {
			a.entries[i].Became = fmt.Sprintf("column %s of model %s; no imported metric reaches it", d.Column, d.Model)
		}
	}
}
