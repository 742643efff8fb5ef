package domain

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"
	"strings"
)

// Definitions are the parts of a catalogue the compiler reads.
type Definitions struct {
	Models        []Model        `json:"models"`
	Relationships []Relationship `json:"relationships"`
	Metrics       []Metric       `json:"metrics"`
}

// Bundle is a pinned catalogue: definitions and knowledge, a version label
// from configuration, and the SHA-256 digest of the canonical form. A Bundle
// is immutable once built; a refresh builds a new one.
type Bundle struct {
	version   string
	defs      Definitions
	knowledge Knowledge
	digest    string
	metrics   map[string]int
	models    map[string]int
	rels      map[string]int
	mdigests  map[string]string
}

// ErrInvalidDefinitions is wrapped by NewBundle when Check finds problems.
var ErrInvalidDefinitions = errors.New("the catalogue is not consistent")

// NewBundle checks defs and knowledge (see Check), puts them in canonical
// order and pins them. The caller must not modify defs or knowledge
// afterwards. On inconsistency it returns the problems joined, each a
// *Problem, wrapped with ErrInvalidDefinitions.
func NewBundle(version string, defs Definitions, knowledge Knowledge) (*Bundle, error) {
	if probs := Check(&defs, &knowledge); len(probs) > 0 {
		errs := []error{ErrInvalidDefinitions}
		for _, p := range probs {
			errs = append(errs, p)
		}
		return nil, errors.Join(errs...)
	}
	canonicalize(&defs, &knowledge)
	b := &Bundle{version: version, defs: defs, knowledge: knowledge,
		metrics: map[string]int{}, models: map[string]int{}, rels: map[string]int{}, mdigests: map[string]string{}}
	for i, m := range defs.Models {
		b.models[m.Name] = i
	}
	for i, r := range defs.Relationships {
		b.rels[r.Name] = i
	}
	for i, m := range defs.Metrics {
		b.metrics[m.Name] = i
	}
	whole, err := canonicalJSON(struct {
		Definitions Definitions `json:"definitions"`
		Knowledge   Knowledge   `json:"knowledge"`
	}{defs, knowledge})
	if err != nil {
		return nil, err
	}
	b.digest = digestOf(whole)
	for i := range defs.Metrics {
		m := &defs.Metrics[i]
		part := struct {
			Metric        *Metric        `json:"metric"`
			Model         Model          `json:"model"`
			Relationships []Relationship `json:"relationships"`
			JoinedModels  []Model        `json:"joined_models,omitempty"`
		}{Metric: m, Model: defs.Models[b.models[m.Model]], Relationships: []Relationship{}}
		used := map[string]bool{}
		for _, d := range m.Dimensions {
			for _, r := range d.Via {
				used[r] = true
			}
		}
		// Indexes into the sorted lists, sorted, keep the canonical order
		// without a pass over every relationship and model per metric.
		var rels, models []int
		joined := map[string]bool{}
		for name := range used {
			if i, ok := b.rels[name]; ok {
				rels = append(rels, i)
			}
		}
		slices.Sort(rels)
		for _, i := range rels {
			r := defs.Relationships[i]
			part.Relationships = append(part.Relationships, r)
			for _, jm := range []string{r.Origin.Model, r.Target.Model} {
				// The models a dimension is read from shape the answer as
				// much as the metric's own model does: a change of their
				// table moves the metric's digest.
				if i, ok := b.models[jm]; ok && !joined[jm] && jm != m.Model {
					joined[jm] = true
					models = append(models, i)
				}
			}
		}
		slices.Sort(models)
		for _, i := range models {
			part.JoinedModels = append(part.JoinedModels, defs.Models[i])
		}
		js, err := canonicalJSON(part)
		if err != nil {
			return nil, err
		}
		b.mdigests[m.Name] = digestOf(js)
	}
	return b, nil
}

// Version returns the version label stamped on the bundle (not digested).
func (b *Bundle) Version() string { return b.version }

// Digest returns the SHA-256 of the canonical form, 64 lowercase hex.
func (b *Bundle) Digest() string { return b.digest }

// MetricDigest returns the digest of one metric together with its model,
// the relationships its dimensions use and the models those relationships
// join, so an answer pins exactly the definitions that produced it.
func (b *Bundle) MetricDigest(name string) string { return b.mdigests[name] }

// Definitions returns the definitions in canonical order. Callers must not
// modify them.
func (b *Bundle) Definitions() *Definitions { return &b.defs }

// Knowledge returns the knowledge in canonical order. Callers must not
// modify it.
func (b *Bundle) Knowledge() *Knowledge { return &b.knowledge }

// Metric returns the metric called name.
func (b *Bundle) Metric(name string) (*Metric, bool) {
	i, ok := b.metrics[name]
	if !ok {
		return nil, false
	}
	return &b.defs.Metrics[i], true
}

// Model returns the model called name.
func (b *Bundle) Model(name string) (*Model, bool) {
	i, ok := b.models[name]
	if !ok {
		return nil, false
	}
	return &b.defs.Models[i], true
}

// Relationship returns the relationship called name.
func (b *Bundle) Relationship(name string) (*Relationship, bool) {
	i, ok := b.rels[name]
	if !ok {
		return nil, false
	}
	return &b.defs.Relationships[i], true
}

// Canonical returns the canonical JSON of the bundle's content, the bytes
// the digest is taken over (docs/bundle-digest.md).
func (b *Bundle) Canonical() ([]byte, error) {
	return canonicalJSON(struct {
		Definitions Definitions `json:"definitions"`
		Knowledge   Knowledge   `json:"knowledge"`
	}{b.defs, b.knowledge})
}

func digestOf(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// canonicalJSON marshals v, then re-encodes it with object keys sorted (maps
// marshal sorted), no insignificant whitespace and no HTML escaping.
func canonicalJSON(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(tree); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

// canonicalize sorts every set in the content, so that the order of files,
// keys and list items that carry no meaning cannot move the digest. Ordered
// lists (via chains, example questions) keep their order.
func canonicalize(d *Definitions, k *Knowledge) {
	byName := func(a, b string) int { return strings.Compare(a, b) }
	// A list that is absent and one that is empty mean the same: both are
	// written as [], never null.
	d.Models = orEmpty(d.Models)
	d.Relationships = orEmpty(d.Relationships)
	d.Metrics = orEmpty(d.Metrics)
	slices.SortFunc(d.Models, func(a, b Model) int { return byName(a.Name, b.Name) })
	for i := range d.Models {
		m := &d.Models[i]
		slices.SortFunc(m.Columns, func(a, b ModelColumn) int { return byName(a.Name, b.Name) })
		for j := range m.Columns {
			m.Columns[j].Description = normalizeText(m.Columns[j].Description)
		}
		slices.Sort(m.PrimaryKey)
		if m.Audience != nil {
			slices.Sort(m.Audience.Restricted)
		}
		m.Description = normalizeText(m.Description)
	}
	slices.SortFunc(d.Relationships, func(a, b Relationship) int { return byName(a.Name, b.Name) })
	for i := range d.Relationships {
		d.Relationships[i].Description = normalizeText(d.Relationships[i].Description)
	}
	slices.SortFunc(d.Metrics, func(a, b Metric) int { return byName(a.Name, b.Name) })
	for i := range d.Metrics {
		m := &d.Metrics[i]
		slices.Sort(m.Grains)
		m.Grains = slices.Compact(m.Grains)
		m.Dimensions = orEmpty(m.Dimensions)
		slices.SortFunc(m.Dimensions, func(a, b Dimension) int { return byName(a.Name, b.Name) })
		for j := range m.Dimensions {
			slices.Sort(m.Dimensions[j].Values)
			m.Dimensions[j].Description = normalizeText(m.Dimensions[j].Description)
		}
		slices.SortFunc(m.RequiredFilters, func(a, b RequiredFilter) int {
			return strings.Compare(string(a.Op)+"\x00"+a.Column+"\x00"+a.Value, string(b.Op)+"\x00"+b.Column+"\x00"+b.Value)
		})
		m.RequiredFilters = slices.Compact(m.RequiredFilters)
		if m.RequiredFilters == nil {
			m.RequiredFilters = []RequiredFilter{}
		}
		slices.Sort(m.Audience.Restricted)
		m.Description = normalizeText(m.Description)
	}
	slices.SortFunc(k.Glossary, func(a, b Glossary) int { return byName(a.Term, b.Term) })
	for i := range k.Glossary {
		slices.Sort(k.Glossary[i].Synonyms)
		k.Glossary[i].Note = normalizeText(k.Glossary[i].Note)
	}
	slices.SortFunc(k.Caveats, func(a, b Caveat) int { return byName(a.Name, b.Name) })
	for i := range k.Caveats {
		slices.Sort(k.Caveats[i].About)
		k.Caveats[i].Note = normalizeText(k.Caveats[i].Note)
	}
	slices.SortFunc(k.NotDefined, func(a, b NotDefined) int { return byName(a.Phrase, b.Phrase) })
	for i := range k.NotDefined {
		slices.Sort(k.NotDefined[i].Synonyms)
		k.NotDefined[i].Note = normalizeText(k.NotDefined[i].Note)
	}
	slices.SortFunc(k.Examples, func(a, b Example) int { return byName(a.Name, b.Name) })
	for i := range k.Examples {
		k.Examples[i].Asked = orEmpty(k.Examples[i].Asked)
		k.Examples[i].Question.Metrics = orEmpty(k.Examples[i].Question.Metrics)
		slices.Sort(k.Examples[i].Asked)
		k.Examples[i].Note = normalizeText(k.Examples[i].Note)
	}
	if k.Glossary == nil {
		k.Glossary = []Glossary{}
	}
	if k.Caveats == nil {
		k.Caveats = []Caveat{}
	}
	if k.NotDefined == nil {
		k.NotDefined = []NotDefined{}
	}
	if k.Examples == nil {
		k.Examples = []Example{}
	}
}

func orEmpty[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}

// normalizeText makes prose independent of line endings and of blank lines
// and trailing spaces around it: CRLF becomes LF, trailing spaces of each
// line and surrounding blank lines are removed.
func normalizeText(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.Trim(strings.Join(lines, "\n"), "\n")
}
