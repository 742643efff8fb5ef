package demo_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"sutura.dev/examples/demo"
)

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func assertIdentifier(t *testing.T, file, what, name string) {
	t.Helper()
	assert.True(t, identifier.MatchString(name) && len(name) <= 63, "%s: %s %q is not an identifier", file, what, name)
}

var grainOrder = map[string]int{"day": 0, "week": 1, "month": 2, "quarter": 3, "year": 4}

// validValue applies the dimension-value rules of the specification (§3.3).
func validValue(v string) bool {
	if v == "" || len([]rune(v)) > 64 || strings.TrimSpace(v) != v || strings.Contains(v, "  ") {
		return false
	}
	for _, r := range v {
		invisible := r == 0x00AD || (r >= 0x200B && r <= 0x200F) || (r >= 0x202A && r <= 0x202E) ||
			(r >= 0x2060 && r <= 0x2064) || (r >= 0x2066 && r <= 0x2069) || r == 0xFEFF || (r >= 0xFFF9 && r <= 0xFFFB)
		if unicode.IsControl(r) || invisible || (unicode.IsSpace(r) && r != ' ') {
			return false
		}
	}
	return true
}

// TestCatalogueModelsMatchData: every model names the demo source, has a
// CSV file whose header is exactly its declared columns, and every value
// parses as its declared type; primary keys are unique and present.
func TestCatalogueModelsMatchData(t *testing.T) {
	c := loadCatalogue(t)
	require.Len(t, c.models, 4)
	for _, name := range sortedKeys(c.models) {
		m := c.models[name]
		assertIdentifier(t, m.file, "model", m.Name)
		assert.Equal(t, demo.SourceAlias, m.Source, m.file)
		assert.NotEmpty(t, strings.TrimSpace(m.body), "%s: no description", m.file)
		d := loadData(t, m.Table)
		var declared []string
		for _, col := range m.Columns {
			assertIdentifier(t, m.file, "column", col.Name)
			declared = append(declared, col.Name)
		}
		require.Equal(t, declared, d.header, "%s: columns differ from %s.csv", m.file, m.Table)
		for i, col := range m.Columns {
			for line, row := range d.rows {
				v := row[i]
				if v == "" {
					continue
				}
				var err error
				switch col.Type {
				case "integer":
					_, err = strconv.ParseInt(v, 10, 64)
				case "date":
					_, err = time.Parse(time.DateOnly, v)
				case "boolean":
					_, err = strconv.ParseBool(v)
					if v != "true" && v != "false" {
						t.Errorf("%s.csv line %d: boolean %q", m.Table, line+2, v)
					}
				case "text":
				default:
					t.Fatalf("%s: column %s has type %q", m.file, col.Name, col.Type)
				}
				require.NoError(t, err, "%s.csv line %d column %s", m.Table, line+2, col.Name)
			}
		}
		require.NotEmpty(t, m.PrimaryKey, m.file)
		pk := d.col(t, m.PrimaryKey)
		seen := map[string]bool{}
		for _, row := range d.rows {
			require.NotEmpty(t, row[pk], "%s: null primary key", m.Table)
			require.False(t, seen[row[pk]], "%s: duplicate primary key %s", m.Table, row[pk])
			seen[row[pk]] = true
		}
	}
}

// TestCatalogueRelationships: endpoints exist, join types are declared
// correctly for the data (the "one" side is unique) and every foreign key
// value finds its row.
func TestCatalogueRelationships(t *testing.T) {
	c := loadCatalogue(t)
	for _, name := range sortedKeys(c.relationships) {
		r := c.relationships[name]
		assertIdentifier(t, r.file, "relationship", r.Name)
		origin, target := c.models[r.Origin.Model], c.models[r.Target.Model]
		require.NotNil(t, origin, r.file)
		require.NotNil(t, target, r.file)
		_, ok := origin.column(r.Origin.Column)
		require.True(t, ok, r.file)
		_, ok = target.column(r.Target.Column)
		require.True(t, ok, r.file)
		od, td := loadData(t, origin.Table), loadData(t, target.Table)
		values := func(d *dataTable, col string) map[string]int {
			out := map[string]int{}
			i := d.col(t, col)
			for _, row := range d.rows {
				if row[i] != "" {
					out[row[i]]++
				}
			}
			return out
		}
		ov, tv := values(od, r.Origin.Column), values(td, r.Target.Column)
		switch r.JoinType {
		case "many_to_one", "one_to_one":
			for v, n := range tv {
				require.Equal(t, 1, n, "%s: target value %s is not unique", r.file, v)
			}
			for v := range ov {
				require.Contains(t, tv, v, "%s: dangling key %s", r.file, v)
			}
		case "one_to_many":
			for v, n := range ov {
				require.Equal(t, 1, n, "%s: origin value %s is not unique", r.file, v)
			}
		default:
			t.Fatalf("%s: join_type %q", r.file, r.JoinType)
		}
	}
}

// TestCatalogueMetrics checks each metric against the load-time rules of
// the specification and against the data (allowlists are exactly the
// distinct values present).
func TestCatalogueMetrics(t *testing.T) {
	c := loadCatalogue(t)
	tables := map[string]bool{}
	for _, m := range c.models {
		parts := strings.Split(m.Table, ".")
		tables[strings.ToLower(parts[len(parts)-1])] = true
	}
	for _, name := range sortedKeys(c.metrics) {
		m := c.metrics[name]
		t.Run(name, func(t *testing.T) {
			assertIdentifier(t, m.file, "metric", m.Name)
			assert.False(t, tables[strings.ToLower(m.Name)], "%s: metric named like a table", m.file)
			assert.NotEmpty(t, strings.TrimSpace(m.body), "%s: no description", m.file)
			model := c.models[m.Model]
			require.NotNil(t, model, m.file)
			tc, ok := model.column(m.TimeColumn)
			require.True(t, ok, m.file)
			assert.Equal(t, "date", tc.Type, m.file)
			require.NotEmpty(t, m.Grains, m.file)
			for _, g := range m.Grains {
				assert.Contains(t, grainOrder, g, m.file)
			}

			checkTerm := func(tm term) {
				if tm.CountIf != "" {
					assert.Empty(t, tm.Aggregate+tm.Column, m.file)
					col, ok := model.column(tm.CountIf)
					require.True(t, ok, m.file)
					assert.Equal(t, "boolean", col.Type, m.file)
					return
				}
				assert.Contains(t, []string{"sum", "count", "count_distinct", "avg", "min", "max"}, tm.Aggregate, m.file)
				_, ok := model.column(tm.Column)
				assert.True(t, ok, "%s: unknown term column %s", m.file, tm.Column)
			}
			switch ms := m.Measure; {
			case ms.Simple != nil && ms.Ratio == nil:
				checkTerm(*ms.Simple)
			case ms.Ratio != nil && ms.Simple == nil:
				checkTerm(ms.Ratio.Numerator)
				checkTerm(ms.Ratio.Denominator)
				assert.Contains(t, []string{"yields_null", "fails"}, ms.Ratio.ZeroDenominator, m.file)
			default:
				t.Fatalf("%s: measure must be exactly one of simple and ratio", m.file)
			}

			for _, f := range m.RequiredFilters {
				n := 0
				var col, value string
				if f.Equals != nil {
					n, col, value = n+1, f.Equals.Column, f.Equals.Value
				}
				if f.NotEquals != nil {
					n, col, value = n+1, f.NotEquals.Column, f.NotEquals.Value
				}
				if f.IsTrue != nil {
					n, col = n+1, f.IsTrue.Column
					spec, _ := model.column(col)
					assert.Equal(t, "boolean", spec.Type, m.file)
				}
				if f.IsNotNull != nil {
					n, col = n+1, f.IsNotNull.Column
				}
				require.Equal(t, 1, n, "%s: a required filter has exactly one operator", m.file)
				_, ok := model.column(col)
				assert.True(t, ok, "%s: unknown filter column %s", m.file, col)
				if f.Equals != nil || f.NotEquals != nil {
					assert.True(t, validValue(value), m.file)
				}
			}

			folded := map[string]bool{}
			for _, d := range m.Dimensions {
				assertIdentifier(t, m.file, "dimension", d.Name)
				low := strings.ToLower(d.Name)
				assert.NotEqual(t, "period", low, m.file)
				assert.NotEqual(t, strings.ToLower(m.Name), low, m.file)
				assert.False(t, tables[low], "%s: dimension %s named like a table", m.file, d.Name)
				assert.False(t, folded[low], "%s: dimensions fold to %s", m.file, low)
				folded[low] = true
				// Walk the via chain from the metric's model.
				at := model
				for _, rel := range d.Via {
					r := c.relationships[rel]
					require.NotNil(t, r, "%s: unknown relationship %s", m.file, rel)
					require.Equal(t, at.Name, r.Origin.Model, "%s: via chain of %s does not start at %s", m.file, d.Name, at.Name)
					require.NotEqual(t, "one_to_many", r.JoinType, "%s: %s reached through one_to_many", m.file, d.Name)
					at = c.models[r.Target.Model]
				}
				_, ok := at.column(d.Column)
				require.True(t, ok, "%s: %s has no column %s", m.file, at.Name, d.Column)
				if !d.hasValues {
					continue
				}
				require.NotEmpty(t, d.Values, m.file)
				require.LessOrEqual(t, len(d.Values), 64, m.file)
				for _, v := range d.Values {
					assert.True(t, validValue(v), "%s: value %q", m.file, v)
				}
				data := loadData(t, at.Table)
				present := map[string]bool{}
				for _, row := range data.rows {
					if v := row[data.col(t, d.Column)]; v != "" {
						present[v] = true
					}
				}
				assert.ElementsMatch(t, sortedKeys(present), d.Values, "%s: %s allowlist differs from the data", m.file, d.Name)
			}

			switch m.Audience.Kind {
			case yaml.ScalarNode:
				assert.Equal(t, "open", m.Audience.Value, m.file)
			case yaml.MappingNode:
				var aud struct {
					Restricted []string `yaml:"restricted"`
				}
				require.NoError(t, m.Audience.Decode(&aud), m.file)
				require.Len(t, m.Audience.Content, 2, m.file)
				require.NotEmpty(t, aud.Restricted, m.file)
			default:
				t.Fatalf("%s: audience is required", m.file)
			}

			if m.Anchor != nil {
				checkAnchorRange(t, m)
			}
		})
	}
}

// checkAnchorRange: the anchor covers exactly one period of the metric's
// coarsest declared grain.
func checkAnchorRange(t *testing.T, m *metricDoc) {
	t.Helper()
	coarsest := m.Grains[0]
	for _, g := range m.Grains {
		if grainOrder[g] > grainOrder[coarsest] {
			coarsest = g
		}
	}
	start, err := time.Parse(time.DateOnly, m.Anchor.Range.Start)
	require.NoError(t, err, m.file)
	end, err := time.Parse(time.DateOnly, m.Anchor.Range.End)
	require.NoError(t, err, m.file)
	var aligned bool
	var next time.Time
	switch coarsest {
	case "day":
		aligned, next = true, start.AddDate(0, 0, 1)
	case "week":
		aligned, next = start.Weekday() == time.Monday, start.AddDate(0, 0, 7)
	case "month":
		aligned, next = start.Day() == 1, start.AddDate(0, 1, 0)
	case "quarter":
		aligned, next = start.Day() == 1 && (start.Month()-1)%3 == 0, start.AddDate(0, 3, 0)
	case "year":
		aligned, next = start.YearDay() == 1, start.AddDate(1, 0, 0)
	}
	assert.True(t, aligned && next.Equal(end), "%s: anchor range is not one %s", m.file, coarsest)
	assert.NotEmpty(t, m.Anchor.Value, m.file)
}

// TestCatalogueKnowledge: every referent resolves, no phrase is both defined
// and undefined, example questions are askable, and the knowledge fits in
// 32 KiB.
func TestCatalogueKnowledge(t *testing.T) {
	c := loadCatalogue(t)
	assert.LessOrEqual(t, c.knowledgeSize, 32*1024)
	defined := map[string]string{}
	for _, g := range c.glossary {
		for _, p := range append([]string{g.Term}, g.Synonyms...) {
			require.NotContains(t, defined, strings.ToLower(p), "%s: phrase %q defined twice", g.file, p)
			defined[strings.ToLower(p)] = g.file
		}
		m := c.metrics[g.Means.Metric]
		require.NotNil(t, m, "%s: unknown metric %s", g.file, g.Means.Metric)
		if g.Means.Dimension != "" {
			d, ok := m.dimension(g.Means.Dimension)
			require.True(t, ok, "%s: %s has no dimension %s", g.file, m.Name, g.Means.Dimension)
			if g.Means.Value != "" {
				assert.Contains(t, d.Values, g.Means.Value, g.file)
			}
		} else {
			assert.Empty(t, g.Means.Value, g.file)
		}
	}
	for _, n := range c.notDefined {
		for _, p := range append([]string{n.Phrase}, n.Synonyms...) {
			assert.NotContains(t, defined, strings.ToLower(p), "%s: phrase %q is also defined", n.file, p)
		}
	}
	names := map[string]bool{}
	for _, k := range c.caveats {
		assertIdentifier(t, k.file, "caveat", k.Name)
		assert.False(t, names[k.Name], k.file)
		names[k.Name] = true
		require.NotEmpty(t, k.About, k.file)
		for _, ref := range k.About {
			metric, dim, isDim := strings.Cut(ref, ".")
			switch {
			case isDim:
				m := c.metrics[metric]
				require.NotNil(t, m, "%s: referent %s", k.file, ref)
				_, ok := m.dimension(dim)
				assert.True(t, ok, "%s: referent %s", k.file, ref)
			default:
				_, isMetric := c.metrics[ref]
				_, isModel := c.models[ref]
				assert.True(t, isMetric || isModel, "%s: referent %s", k.file, ref)
			}
		}
	}
	for _, e := range c.examples {
		assertIdentifier(t, e.file, "example", e.Name)
		assert.False(t, names[e.Name], e.file)
		names[e.Name] = true
		require.NotEmpty(t, e.Asked, e.file)
		q := e.Question
		require.NotEmpty(t, q.Metrics, e.file)
		first := c.metrics[q.Metrics[0]]
		require.NotNil(t, first, e.file)
		for _, name := range q.Metrics {
			m := c.metrics[name]
			require.NotNil(t, m, "%s: unknown metric %s", e.file, name)
			assert.Equal(t, first.Model, m.Model, e.file)
			assert.Equal(t, first.TimeColumn, m.TimeColumn, e.file)
			assert.Contains(t, m.Grains, q.Grain, e.file)
			for _, dn := range q.Dimensions {
				_, ok := m.dimension(dn)
				assert.True(t, ok, "%s: %s has no dimension %s", e.file, name, dn)
			}
			for _, f := range q.Filters {
				d, ok := m.dimension(f.Dimension)
				require.True(t, ok, e.file)
				require.True(t, d.hasValues, "%s: %s is not filterable", e.file, f.Dimension)
				for _, v := range append([]string{f.Value}, f.Values...) {
					if v != "" {
						assert.Contains(t, d.Values, v, e.file)
					}
				}
			}
		}
		start, err := time.Parse(time.DateOnly, q.Range.Start)
		require.NoError(t, err, e.file)
		end, err := time.Parse(time.DateOnly, q.Range.End)
		require.NoError(t, err, e.file)
		assert.True(t, end.After(start), e.file)
		if q.Top != nil {
			assert.Len(t, q.Metrics, 1, e.file)
		}
	}
}

// TestCatalogueCoverage: the demo exercises every part of the vocabulary,
// so it doubles as a fixture for the rest of the project.
func TestCatalogueCoverage(t *testing.T) {
	c := loadCatalogue(t)
	shapes := map[string]bool{}
	ops := map[string]bool{}
	var twoHop, allowlisted, groupByOnly, restricted bool
	for _, m := range c.metrics {
		if s := m.Measure.Simple; s != nil {
			if s.CountIf != "" {
				shapes["count_if"] = true
			} else {
				shapes[s.Aggregate] = true
			}
		} else {
			shapes["ratio_"+m.Measure.Ratio.ZeroDenominator] = true
		}
		for _, f := range m.RequiredFilters {
			ops["equals"] = ops["equals"] || f.Equals != nil
			ops["not_equals"] = ops["not_equals"] || f.NotEquals != nil
			ops["is_true"] = ops["is_true"] || f.IsTrue != nil
			ops["is_not_null"] = ops["is_not_null"] || f.IsNotNull != nil
		}
		for _, d := range m.Dimensions {
			twoHop = twoHop || len(d.Via) >= 2
			allowlisted = allowlisted || d.hasValues
			groupByOnly = groupByOnly || !d.hasValues
		}
		restricted = restricted || m.Audience.Kind == yaml.MappingNode
	}
	assert.GreaterOrEqual(t, len(c.metrics), 10)
	for _, s := range []string{"sum", "count", "count_distinct", "avg", "min", "max", "count_if", "ratio_yields_null", "ratio_fails"} {
		assert.True(t, shapes[s], "no metric uses %s", s)
	}
	for _, op := range []string{"equals", "not_equals", "is_true", "is_not_null"} {
		assert.True(t, ops[op], "no metric uses required filter %s", op)
	}
	assert.True(t, twoHop && allowlisted && groupByOnly && restricted)
	assert.GreaterOrEqual(t, len(c.relationships), 2)
	assert.NotEmpty(t, c.glossary)
	assert.NotEmpty(t, c.caveats)
	assert.NotEmpty(t, c.notDefined)
	assert.NotEmpty(t, c.examples)
}
