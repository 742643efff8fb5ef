package mdcatalog

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// errorCase is one broken catalogue and the error Load must report for it.
type errorCase struct {
	name   string
	fsys   func(t *testing.T, base fstest.MapFS) fstest.MapFS
	is     error  // the sentinel
	file   string // the file named
	key    string // the key named
	marker string // text on the line the error points at ("" = line 1)
	reason string // a part of the reason
}

// run loads the case's catalogue and checks that one of the errors names
// the file, key and line, and that no error quotes the planted value.
func (c errorCase) run(t *testing.T) {
	base := fixture(t, "minimal")
	fsys := c.fsys(t, base)
	b, err := Load(fsys, "v1")
	require.Error(t, err)
	require.Nil(t, b)
	require.ErrorIs(t, err, c.is)
	msg := err.Error()
	t.Log(msg)
	assert.NotContains(t, strings.ToLower(msg), strings.ToLower(planted), "an error quotes the planted value")
	wantLine := 1
	if c.marker != "" {
		wantLine = lineOf(t, fsys, c.file, c.marker)
	}
	var got []string
	for _, e := range allErrors(err) {
		got = append(got, e.Error())
		assert.NotContains(t, strings.ToLower(e.Key+e.Reason+e.File), strings.ToLower(planted))
		if e.File == c.file && e.Key == c.key && errors.Is(e, c.is) {
			assert.Equal(t, wantLine, e.Line, "line of %s", e)
			assert.Contains(t, e.Reason, c.reason)
			assert.True(t, strings.HasPrefix(e.Error(), e.File+":"), "the message starts with the file: %s", e)
			return
		}
	}
	t.Fatalf("no error names %s key %q; got:\n%s", c.file, c.key, strings.Join(got, "\n"))
}

const (
	orders     = "models/orders.md"
	regions    = "models/regions.md"
	rel        = "models/orders_region.md"
	netSales   = "metrics/net_sales.md"
	returnRate = "metrics/return_rate.md"
	revenue    = "knowledge/revenue.md"
	eastSales  = "knowledge/eastern_sales.md"
	caveat     = "knowledge/returns_lag.md"
	profit     = "knowledge/profit.md"
	example    = "knowledge/east_by_month.md"
)

// swap edits one file of the base catalogue.
func swap(p, old, new string) func(*testing.T, fstest.MapFS) fstest.MapFS {
	return func(t *testing.T, base fstest.MapFS) fstest.MapFS { return replace(t, base, p, old, new) }
}

// add adds files to the base catalogue.
func add(files map[string]string) func(*testing.T, fstest.MapFS) fstest.MapFS {
	return func(_ *testing.T, base fstest.MapFS) fstest.MapFS { return edit(base, files) }
}

func TestLoadFileErrors(t *testing.T) {
	cases := []errorCase{
		{name: "no opening line", is: ErrFrontMatter, file: "x.md", reason: "does not open with a --- line",
			fsys: add(map[string]string{"x.md": "kind: model\nname: " + planted + "\n"})},
		{name: "no closing line", is: ErrFrontMatter, file: "x.md", reason: "not closed",
			fsys: add(map[string]string{"x.md": "---\nkind: model\nname: " + planted + "\n"})},
		{name: "not a mapping", is: ErrFrontMatter, file: "x.md", marker: "- ", reason: "mapping",
			fsys: add(map[string]string{"x.md": "---\n- " + planted + "\n---\n"})},
		{name: "yaml syntax", is: ErrYAML, file: "x.md", marker: "name:", reason: "not valid YAML",
			fsys: add(map[string]string{"x.md": "---\nkind: model\nname: " + planted + ": x\n---\n"})},
		{name: "yaml tab indent", is: ErrYAML, file: "x.md", marker: "\tcolumns", reason: "tabs cannot indent YAML; indent with spaces",
			fsys: add(map[string]string{"x.md": "---\nkind: model\nname: x\n\tcolumns: [" + planted + "]\n---\n"})},
		{name: "yaml tab before a list item", is: ErrYAML, file: "x.md", marker: "\t- ", reason: "tabs cannot indent YAML; indent with spaces",
			fsys: add(map[string]string{"x.md": "---\nkind: model\nname: x\ncolumns:\n\t- " + planted + "\n---\n"})},
		{name: "yaml tab before a nested key", is: ErrYAML, file: "x.md", marker: "\trestricted", reason: "tabs cannot indent YAML; indent with spaces",
			fsys: add(map[string]string{"x.md": "---\nkind: model\nname: x\naudience:\n\trestricted: [" + planted + "]\n---\n"})},
		{name: "yaml control character", is: ErrYAML, file: "x.md", marker: "\x01", reason: "control character",
			fsys: add(map[string]string{"x.md": "---\nkind: model\nname: x\ntable: " + planted + "\x01\n---\n"})},
		{name: "yaml alias", is: ErrYAML, file: "x.md", key: "source", marker: "*a", reason: "alias",
			fsys: add(map[string]string{"x.md": "---\nkind: model\nname: &a " + planted + "\nsource: *a\n---\n"})},
		{name: "undefined alias", is: ErrYAML, file: "x.md", marker: "kind", reason: "alias",
			fsys: add(map[string]string{"x.md": "---\nkind: model\nname: *" + planted + "\n---\n"})},
		{name: "duplicate key", is: ErrDuplicateKey, file: regions, key: "name", marker: "name: " + planted, reason: "appears twice",
			fsys: swap(regions, "name: regions\n", "name: regions\nname: "+planted+"\n")},
		{name: "missing kind", is: ErrMissingKind, file: regions, key: "kind", marker: "name: regions", reason: "is required",
			fsys: swap(regions, "kind: model\n", "")},
		{name: "empty front matter", is: ErrMissingKind, file: "x.md", key: "kind", reason: "empty",
			fsys: add(map[string]string{"x.md": "---\n---\n" + planted + "\n"})},
		{name: "unknown kind", is: ErrUnknownKind, file: regions, key: "kind", marker: "kind:", reason: "model, relationship, metric",
			fsys: swap(regions, "kind: model", "kind: "+planted)},
		{name: "kind not text", is: ErrUnknownKind, file: regions, key: "kind", marker: "kind:", reason: "not a known kind",
			fsys: swap(regions, "kind: model", "kind: ["+planted+"]")},
		{name: "unknown top-level key", is: ErrUnknownKey, file: regions, key: "colour", marker: "colour", reason: "allowed: audience, columns",
			fsys: swap(regions, "source: shop\n", "source: shop\ncolour: "+planted+"\n")},
		{name: "unknown nested key", is: ErrUnknownKey, file: netSales, key: "dimensions[0].colour", marker: "colour", reason: "allowed: column, description",
			fsys: swap(netSales, "    description: The sales area.\n", "    description: The sales area.\n    colour: "+planted+"\n")},
		{name: "unknown deep key", is: ErrUnknownKey, file: netSales, key: "required_filters[0].not_equals.colour", marker: "not_equals", reason: "allowed: column, value",
			fsys: swap(netSales, "{column: channel, value: test}", "{column: channel, value: test, colour: "+planted+"}")},
		{name: "a misspelled key gets a suggestion", is: ErrUnknownKey, file: regions, key: "sourse", marker: "sourse", reason: "did you mean source?",
			fsys: swap(regions, "source: shop\n", "sourse: shop\n")},
		{name: "unknown key that is no identifier", is: ErrUnknownKey, file: regions, key: "(a key that is not an identifier)", marker: planted, reason: "not a known key",
			fsys: swap(regions, "source: shop\n", "source: shop\n\""+planted+"\": x\n")},
		// A key that reads as a number is still a key: it is described, not
		// written back as a list index (found by FuzzFrontMatter).
		{name: "unknown key that looks like a signed number", is: ErrUnknownKey, file: regions, key: "(a key that is not an identifier)", marker: "\"+000\"", reason: "not a known key",
			fsys: swap(regions, "source: shop\n", "source: shop\n\"+000\": x\n")},
		{name: "unknown key that is a plain number", is: ErrUnknownKey, file: netSales, key: "dimensions[0].(a key that is not an identifier)", marker: "\"12\"", reason: "not a known key",
			fsys: swap(netSales, "    description: The sales area.\n", "    description: The sales area.\n    \"12\": x\n")},
		{name: "missing required key", is: ErrSchema, file: returnRate, key: "grains", marker: "kind:", reason: "is required",
			fsys: swap(returnRate, "grains: [month]\n", "")},
		{name: "closed enum", is: ErrSchema, file: rel, key: "join_type", marker: "join_type", reason: "one_to_one, many_to_one, one_to_many",
			fsys: swap(rel, "join_type: many_to_one", "join_type: "+planted)},
		{name: "not an identifier", is: ErrSchema, file: regions, key: "columns[1]", marker: "columns:", reason: "not an identifier",
			fsys: swap(regions, "[region_id, area]", "[region_id, "+planted+"]")},
		{name: "measure and authored sql", is: ErrSchema, file: returnRate, key: "", marker: "kind:", reason: "exactly one of: measure or authored_sql",
			fsys: swap(returnRate, "time_column:", "authored_sql: {postgres: "+planted+"}\ntime_column:")},
		{name: "term needs one form", is: ErrSchema, file: netSales, key: "measure.simple", marker: "simple:", reason: "aggregate with column or count_if",
			fsys: swap(netSales, "column: amount}", "column: amount, count_if: "+planted+"}")},
		{name: "ratio needs zero_denominator", is: ErrSchema, file: returnRate, key: "measure.ratio.zero_denominator", marker: "ratio:", reason: "is required",
			fsys: swap(returnRate, "    zero_denominator: yields_null\n", "")},
		{name: "required filter with two operators", is: ErrSchema, file: netSales, key: "required_filters[1]", marker: "is_not_null", reason: "equals, not_equals, is_true or is_not_null",
			fsys: swap(netSales, "- is_not_null: {column: amount}", "- is_not_null: {column: amount}\n    is_true: {column: "+planted+"}")},
		{name: "empty allowlist", is: ErrSchema, file: netSales, key: "dimensions[0].values", marker: "values:", reason: "at least one",
			fsys: swap(netSales, "values: [east, west]", "values: []")},
		{name: "oversized allowlist", is: ErrSchema, file: netSales, key: "dimensions[0].values", marker: "values:", reason: "more than 64",
			fsys: swap(netSales, "values: [east, west]", "values: ["+manyValues(65)+"]")},
		{name: "grain outside the closed set", is: ErrSchema, file: returnRate, key: "grains[1]", marker: "grains", reason: "day, week, month",
			fsys: swap(returnRate, "grains: [month]", "grains: [month, "+planted+"]")},
		{name: "audience neither open nor restricted", is: ErrSchema, file: returnRate, key: "audience", marker: "audience", reason: "must be open or {restricted: [ids]}",
			fsys: swap(returnRate, "audience:\n  restricted: [finance]", "audience: "+planted)},
		{name: "null where text is wanted", is: ErrSchema, file: regions, key: "source", marker: "source", reason: "must be a string",
			fsys: swap(regions, "source: shop", "source:")},
		{name: "date that does not exist", is: ErrSchema, file: netSales, key: "anchor.range.start", marker: "range:", reason: "not a date",
			fsys: swap(netSales, "start: 2026-01-01", "start: 2026-02-30")},
		{name: "phrase with control character", is: ErrSchema, file: example, key: "asked[0]", marker: "what were", reason: "control character",
			fsys: swap(example, "  - what were sales in the east by month?", "  - \"what were "+planted+"\\u0007\"")},
		{name: "example question does not decode", is: ErrSchema, file: example, key: "question.range.end", marker: "range:", reason: "after range.start",
			fsys: swap(example, "end: 2026-04-01", "end: 2025-04-01")},
		{name: "example filter value", is: ErrSchema, file: example, key: "question.filters[0].value", marker: "op: eq", reason: "control character",
			fsys: swap(example, "value: east}", "value: \""+planted+"\\t\"}")},
		{name: "example number as text", is: ErrSchema, file: example, key: "question.top.n", marker: "top:", reason: "whole number",
			fsys: swap(example, "n: 5", "n: '5'")},
		{name: "relationship described twice", is: ErrSchema, file: rel, key: "description", marker: "description:", reason: "both",
			fsys: swap(rel, "join_type: many_to_one\n", "join_type: many_to_one\ndescription: "+planted+"\n")},
		{name: "caveat without note", is: ErrSchema, file: caveat, marker: "---\n\n", reason: "no note",
			fsys: swap(caveat, "Returns are booked up to 30 days after the order.", "")},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}

func manyValues(n int) string {
	vs := make([]string, n)
	for i := range vs {
		vs[i] = "v" + strings.Repeat("x", i%5) + string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	return strings.Join(vs, ", ")
}

func TestLoadEmptyCatalogue(t *testing.T) {
	for name, fsys := range map[string]fstest.MapFS{
		"no files":        {},
		"no .md files":    {"README.txt": {Data: []byte("hello")}, "sub/data.csv": {Data: []byte("a,b")}},
		"only hidden .md": {".drafts/x.md": {Data: []byte("---\nkind: model\n---\n")}, ".x.md": {Data: []byte("x")}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Load(fsys, "v1")
			require.ErrorIs(t, err, ErrNoDocuments)
			assert.Equal(t, "the catalogue holds no markdown (.md) documents", err.Error())
		})
	}
	dir := t.TempDir()
	_, err := LoadDir(dir, "v1")
	require.ErrorIs(t, err, ErrNoDocuments)
	_, err = LoadDir(dir+"/missing", "v1")
	require.ErrorIs(t, err, ErrRead)
}

// Every problem of every file is reported, sorted by file and line.
func TestLoadReportsAllErrorsSorted(t *testing.T) {
	base := fixture(t, "minimal")
	fsys := replace(t, base, regions, "source: shop\n", "source: shop\ncolour: x\nshade: y\n")
	fsys = replace(t, fsys, netSales, "grains: [month, quarter]", "grains: [hour]")
	fsys = edit(fsys, map[string]string{"a.md": "no front matter", "z/z.md": "---\nkind: nothing\n---\n"})
	_, err := Load(fsys, "v1")
	require.Error(t, err)
	var got []string
	for _, e := range allErrors(err) {
		got = append(got, e.File+":"+e.Key)
	}
	assert.Equal(t, []string{"a.md:", "metrics/net_sales.md:grains[0]", "models/regions.md:colour", "models/regions.md:shade", "z/z.md:kind"}, got)
	assert.Len(t, strings.Split(err.Error(), "\n"), 5)
}

func TestErrorFormat(t *testing.T) {
	e := &Error{File: "metrics/m.md", Line: 12, Column: 5, Key: "dimensions[1].values[3]", Reason: "holds a control character", Err: ErrInconsistent}
	assert.Equal(t, "metrics/m.md:12:5: dimensions[1].values[3]: holds a control character", e.Error())
	assert.ErrorIs(t, e, ErrInconsistent)
	assert.Equal(t, "m.md: the document does not open", (&Error{File: "m.md", Reason: "the document does not open"}).Error())
	assert.Equal(t, "m.md:3: kind: is required", (&Error{File: "m.md", Line: 3, Key: "kind", Reason: "is required"}).Error())
}

func TestLoadBoundsErrorsPerFile(t *testing.T) {
	base := fixture(t, "minimal")
	fsys := replace(t, base, regions, "[region_id, area]", "[region_id, area"+strings.Repeat(", 1x", 70)+"]")
	_, err := Load(fsys, "v1")
	require.ErrorIs(t, err, ErrSchema)
	errs := allErrors(err)
	require.Len(t, errs, maxErrorsPerFile+1)
	assert.Equal(t, "models/regions.md: and 20 more problems in this file", errs[maxErrorsPerFile].Error())
}
