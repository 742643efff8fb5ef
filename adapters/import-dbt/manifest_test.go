package dbt

import (
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

var update = flag.Bool("update", false, "rewrite testdata/semantic_manifest.json from the fixture")

// manifestOf writes a project's YAML in the shape of dbt's
// target/semantic_manifest.json: semantic_models, metrics,
// project_configuration and saved_queries, filters as where_filters, and
// inputs spelled out with nulls, as dbt writes them.
func manifestOf(t *testing.T, files []File) []byte {
	t.Helper()
	m := map[string]any{"semantic_models": []any{}, "metrics": []any{}, "saved_queries": []any{}, "project_configuration": map[string]any{}}
	for _, f := range files {
		if f.Data == nil {
			continue
		}
		dec := yaml.NewDecoder(strings.NewReader(string(f.Data)))
		for {
			var doc map[string]any
			if err := dec.Decode(&doc); err != nil {
				break
			}
			for k, v := range doc {
				switch k {
				case "semantic_model":
					m["semantic_models"] = append(m["semantic_models"].([]any), v)
				case "metric":
					m["metrics"] = append(m["metrics"].([]any), manifestMetric(v.(map[string]any)))
				case "saved_query":
					m["saved_queries"] = append(m["saved_queries"].([]any), v)
				case "project_configuration":
					m["project_configuration"] = v
				}
			}
		}
	}
	out, err := json.MarshalIndent(m, "", "  ")
	require.NoError(t, err)
	return append(out, '\n')
}

func whereFilters(v any) any {
	var templates []any
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		templates = []any{map[string]any{"where_sql_template": x}}
	case []any:
		for _, s := range x {
			templates = append(templates, map[string]any{"where_sql_template": s})
		}
	}
	return map[string]any{"where_filters": templates}
}

func manifestMetric(metric map[string]any) map[string]any {
	metric["filter"] = whereFilters(metric["filter"])
	tp, _ := metric["type_params"].(map[string]any)
	input := func(v any, extra map[string]any) any {
		in, ok := v.(map[string]any)
		if !ok {
			if v == nil {
				return nil
			}
			in = map[string]any{"name": v}
		}
		in["filter"] = whereFilters(in["filter"])
		for k, d := range extra {
			if _, ok := in[k]; !ok {
				in[k] = d
			}
		}
		return in
	}
	measureExtra := map[string]any{"alias": nil, "join_to_timespine": false, "fill_nulls_with": nil}
	metricExtra := map[string]any{"alias": nil, "offset_window": nil, "offset_to_grain": nil}
	for _, k := range []string{"measure", "numerator", "denominator"} {
		if v, ok := tp[k]; ok {
			extra := metricExtra
			if k == "measure" {
				extra = measureExtra
			}
			tp[k] = input(v, extra)
		}
	}
	if ms, ok := tp["metrics"].([]any); ok {
		for i, v := range ms {
			ms[i] = input(v, metricExtra)
		}
	}
	return metric
}

// The committed semantic_manifest.json is the fixture in the manifest's
// shape, and reads to the same definitions and outcomes as the YAML.
func TestManifestMatchesFixture(t *testing.T) {
	files := fixture(t)
	want := manifestOf(t, files)
	const path = "testdata/semantic_manifest.json"
	if *update {
		require.NoError(t, os.WriteFile(path, want, 0o644))
	}
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, string(want), string(got), "run go test -update to rewrite %s", path)

	fromYAML, err := Read(files)
	require.NoError(t, err)
	fromJSON, err := Read([]File{{Path: "semantic_manifest.json", Data: got}})
	require.NoError(t, err)
	assert.Equal(t, fromYAML.Definitions, fromJSON.Definitions)
	assert.Equal(t, fromYAML.Dimensions, fromJSON.Dimensions)
	outcome := func(r *Result) map[string]string {
		out := map[string]string{}
		for _, e := range r.Entries {
			reason := e.Reason
			if i := strings.Index(reason, "(line "); i >= 0 {
				reason = reason[:i] // filter lines differ between the two files
			}
			out[e.Kind+" "+e.Name] = e.Status + ": " + e.Became + reason
		}
		return out
	}
	assert.Equal(t, outcome(fromYAML), outcome(fromJSON))
}
