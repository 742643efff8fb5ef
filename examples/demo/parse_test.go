package demo_test

// A deliberately small, independent reader of the demo catalogue and data,
// used only by these tests. It is strict about keys (so a typo in a document
// fails here before it reaches the real loader) but knows nothing the
// product specification does not say.

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"sutura.dev/examples/demo"
)

// catalogue is every parsed document of the demo catalogue.
type catalogue struct {
	models        map[string]*modelDoc
	relationships map[string]*relationshipDoc
	metrics       map[string]*metricDoc
	glossary      []*glossaryDoc
	caveats       []*caveatDoc
	notDefined    []*notDefinedDoc
	examples      []*exampleDoc
	knowledgeSize int // bytes of knowledge files, front matter and body
	files         []string
}

type columnSpec struct {
	Name        string `yaml:"name"`
	Type        string `yaml:"type"`
	Description string `yaml:"description"`
}

// UnmarshalYAML accepts a bare column name or {name, type?, description?}.
func (c *columnSpec) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		c.Name = n.Value
		return nil
	}
	if err := checkKeys(n, "name", "type", "description"); err != nil {
		return err
	}
	type plain columnSpec
	return n.Decode((*plain)(c))
}

type modelDoc struct {
	Kind       string       `yaml:"kind"`
	Name       string       `yaml:"name"`
	Source     string       `yaml:"source"`
	Table      string       `yaml:"table"`
	Columns    []columnSpec `yaml:"columns"`
	PrimaryKey string       `yaml:"primary_key"`
	Audience   yaml.Node    `yaml:"audience"`
	file       string
	body       string
}

func (m *modelDoc) column(name string) (columnSpec, bool) {
	for _, c := range m.Columns {
		if c.Name == name {
			return c, true
		}
	}
	return columnSpec{}, false
}

type endpoint struct {
	Model  string `yaml:"model"`
	Column string `yaml:"column"`
}

type relationshipDoc struct {
	Kind     string   `yaml:"kind"`
	Name     string   `yaml:"name"`
	Origin   endpoint `yaml:"origin"`
	Target   endpoint `yaml:"target"`
	JoinType string   `yaml:"join_type"`
	file     string
}

type term struct {
	Aggregate string `yaml:"aggregate"`
	Column    string `yaml:"column"`
	CountIf   string `yaml:"count_if"`
}

type ratio struct {
	Numerator       term   `yaml:"numerator"`
	Denominator     term   `yaml:"denominator"`
	ZeroDenominator string `yaml:"zero_denominator"`
}

type measure struct {
	Simple *term  `yaml:"simple"`
	Ratio  *ratio `yaml:"ratio"`
}

// via is one relationship name or a list of them.
type via []string

// UnmarshalYAML accepts a scalar or a sequence.
func (v *via) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*v = via{n.Value}
		return nil
	}
	var list []string
	if err := n.Decode(&list); err != nil {
		return err
	}
	*v = list
	return nil
}

type dimension struct {
	Name        string   `yaml:"name"`
	Column      string   `yaml:"column"`
	Via         via      `yaml:"via"`
	Values      []string `yaml:"values"`
	Description string   `yaml:"description"`
	hasValues   bool
}

// UnmarshalYAML refuses unknown keys and records whether values was given.
func (d *dimension) UnmarshalYAML(n *yaml.Node) error {
	if err := checkKeys(n, "name", "column", "via", "values", "description"); err != nil {
		return err
	}
	type plain dimension
	if err := n.Decode((*plain)(d)); err != nil {
		return err
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "values" {
			d.hasValues = true
		}
	}
	return nil
}

type columnValue struct {
	Column string `yaml:"column"`
	Value  string `yaml:"value"`
}

type columnOnly struct {
	Column string `yaml:"column"`
}

type requiredFilter struct {
	Equals    *columnValue `yaml:"equals"`
	NotEquals *columnValue `yaml:"not_equals"`
	IsTrue    *columnOnly  `yaml:"is_true"`
	IsNotNull *columnOnly  `yaml:"is_not_null"`
}

type dateRange struct {
	Start string `yaml:"start"`
	End   string `yaml:"end"`
}

type anchor struct {
	Range dateRange `yaml:"range"`
	Value string    `yaml:"value"`
}

type metricDoc struct {
	Kind            string           `yaml:"kind"`
	Name            string           `yaml:"name"`
	Model           string           `yaml:"model"`
	Measure         measure          `yaml:"measure"`
	TimeColumn      string           `yaml:"time_column"`
	Grains          []string         `yaml:"grains"`
	Dimensions      []dimension      `yaml:"dimensions"`
	RequiredFilters []requiredFilter `yaml:"required_filters"`
	Anchor          *anchor          `yaml:"anchor"`
	Audience        yaml.Node        `yaml:"audience"`
	file            string
	body            string
}

func (m *metricDoc) dimension(name string) (dimension, bool) {
	for _, d := range m.Dimensions {
		if d.Name == name {
			return d, true
		}
	}
	return dimension{}, false
}

type glossaryDoc struct {
	Kind     string   `yaml:"kind"`
	Term     string   `yaml:"term"`
	Synonyms []string `yaml:"synonyms"`
	Means    struct {
		Metric    string `yaml:"metric"`
		Dimension string `yaml:"dimension"`
		Value     string `yaml:"value"`
	} `yaml:"means"`
	file string
}

type caveatDoc struct {
	Kind  string   `yaml:"kind"`
	Name  string   `yaml:"name"`
	About []string `yaml:"about"`
	file  string
}

type notDefinedDoc struct {
	Kind     string   `yaml:"kind"`
	Phrase   string   `yaml:"phrase"`
	Synonyms []string `yaml:"synonyms"`
	file     string
}

type questionFilter struct {
	Op        string   `yaml:"op"`
	Dimension string   `yaml:"dimension"`
	Value     string   `yaml:"value"`
	Values    []string `yaml:"values"`
}

type question struct {
	Metrics    []string         `yaml:"metrics"`
	Grain      string           `yaml:"grain"`
	Range      dateRange        `yaml:"range"`
	Dimensions []string         `yaml:"dimensions"`
	Filters    []questionFilter `yaml:"filters"`
	Top        *struct {
		N         int    `yaml:"n"`
		By        string `yaml:"by"`
		Direction string `yaml:"direction"`
	} `yaml:"top"`
}

type exampleDoc struct {
	Kind     string   `yaml:"kind"`
	Name     string   `yaml:"name"`
	Asked    []string `yaml:"asked"`
	Question question `yaml:"question"`
	file     string
}

// checkKeys refuses a mapping node holding a key outside allowed.
func checkKeys(n *yaml.Node, allowed ...string) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: expected a mapping", n.Line)
	}
	for i := 0; i < len(n.Content); i += 2 {
		k := n.Content[i].Value
		found := false
		for _, a := range allowed {
			found = found || a == k
		}
		if !found {
			return fmt.Errorf("line %d: unknown key %q", n.Content[i].Line, k)
		}
	}
	return nil
}

// splitFrontMatter returns the YAML between the opening and closing ---
// lines and the Markdown body after them.
func splitFrontMatter(text string) (front, body string, err error) {
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return "", "", fmt.Errorf("does not open with a --- line")
	}
	if strings.HasPrefix(rest, "---\n") || rest == "---" {
		return "", strings.TrimPrefix(rest, "---"), nil
	}
	front, body, ok = strings.Cut(rest, "\n---\n")
	if !ok {
		front, ok = strings.CutSuffix(rest, "\n---")
		if !ok {
			return "", "", fmt.Errorf("has no closing --- line")
		}
	}
	return front + "\n", body, nil
}

// strictDecode decodes front matter into out, refusing unknown keys.
func strictDecode(front string, out any) error {
	dec := yaml.NewDecoder(strings.NewReader(front))
	dec.KnownFields(true)
	return dec.Decode(out)
}

// loadCatalogue parses every document of demo.Catalog().
func loadCatalogue(t *testing.T) *catalogue {
	t.Helper()
	c := &catalogue{
		models:        map[string]*modelDoc{},
		relationships: map[string]*relationshipDoc{},
		metrics:       map[string]*metricDoc{},
	}
	err := fs.WalkDir(demo.Catalog(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		require.Equal(t, ".md", path.Ext(p), "%s: the catalogue holds only Markdown documents", p)
		raw, err := fs.ReadFile(demo.Catalog(), p)
		require.NoError(t, err)
		c.files = append(c.files, p)
		front, body, err := splitFrontMatter(string(raw))
		require.NoError(t, err, p)
		var head struct {
			Kind string `yaml:"kind"`
		}
		require.NoError(t, yaml.Unmarshal([]byte(front), &head), p)
		decode := func(out any) { require.NoError(t, strictDecode(front, out), p) }
		switch head.Kind {
		case "model":
			m := &modelDoc{file: p, body: body}
			decode(m)
			require.NotContains(t, c.models, m.Name, "%s: duplicate model", p)
			c.models[m.Name] = m
		case "relationship":
			r := &relationshipDoc{file: p}
			decode(r)
			require.NotContains(t, c.relationships, r.Name, "%s: duplicate relationship", p)
			c.relationships[r.Name] = r
		case "metric":
			m := &metricDoc{file: p, body: body}
			decode(m)
			require.NotContains(t, c.metrics, m.Name, "%s: duplicate metric", p)
			c.metrics[m.Name] = m
		case "glossary":
			g := &glossaryDoc{file: p}
			decode(g)
			c.glossary = append(c.glossary, g)
			c.knowledgeSize += len(raw)
		case "caveat":
			k := &caveatDoc{file: p}
			decode(k)
			c.caveats = append(c.caveats, k)
			c.knowledgeSize += len(raw)
		case "not_defined":
			k := &notDefinedDoc{file: p}
			decode(k)
			c.notDefined = append(c.notDefined, k)
			c.knowledgeSize += len(raw)
		case "example":
			k := &exampleDoc{file: p}
			decode(k)
			c.examples = append(c.examples, k)
			c.knowledgeSize += len(raw)
		default:
			t.Fatalf("%s: unknown kind %q", p, head.Kind)
		}
		return nil
	})
	require.NoError(t, err)
	require.NotEmpty(t, c.files)
	return c
}

// dataTable is one CSV table of demo.Data(): the header and the raw fields
// ("" is null).
type dataTable struct {
	header []string
	index  map[string]int
	rows   [][]string
}

// col returns the position of a column, failing the test when it is absent.
func (d *dataTable) col(t *testing.T, name string) int {
	t.Helper()
	i, ok := d.index[name]
	require.True(t, ok, "no column %q in the data", name)
	return i
}

func parseCSV(t *testing.T, raw []byte) *dataTable {
	t.Helper()
	r := csv.NewReader(bytes.NewReader(raw))
	recs, err := r.ReadAll()
	require.NoError(t, err)
	require.NotEmpty(t, recs)
	d := &dataTable{header: recs[0], index: map[string]int{}, rows: recs[1:]}
	for i, h := range d.header {
		d.index[h] = i
	}
	return d
}

// loadData reads <table>.csv from demo.Data().
func loadData(t *testing.T, table string) *dataTable {
	t.Helper()
	raw, err := fs.ReadFile(demo.Data(), table+".csv")
	require.NoError(t, err)
	return parseCSV(t, raw)
}

// sortedKeys returns the keys of a map in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
