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

	"sutura.dev/adapters/importread"
)

var update = flag.Bool("update", false, "rewrite testdata/semantic_manifest.json from the fixture")

// manifestOf writes a project's YAML in the shape of dbt's
// target/semantic_manifest.json: semantic_models, metrics,
// project_configuration and saved_queries, filters as where_filters, and
// inputs spelled out with nulls, as dbt writes them.
func manifestOf(t *testing.T, files []importread.File) []byte {
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
	fromJSON, err := Read([]importread.File{{Path: "semantic_manifest.json", Data: got}})
	require.NoError(t, err)
	assert.Equal(t, fromYAML.Definitions, fromJSON.Definitions)
	assert.Equal(t, fromYAML.Dimensions, fromJSON.Dimensions)
	outcome := func(r *importread.Result) map[string]string {
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

// A manifest as dbt writes it spells every absent key as null: nulls are
// absences, never refusals.
func TestManifestNulls(t *testing.T) {
	const manifest = `{
  "semantic_models": [{
    "name": "orders", "description": null, "label": null, "metadata": null, "config": {"meta": {}},
    "node_relation": {"alias": "orders", "schema_name": "shop", "database": "db", "relation_name": "\"db\".\"shop\".\"orders\""},
    "defaults": {"agg_time_dimension": "ordered_at"}, "primary_entity": null,
    "entities": [{"name": "order", "description": null, "type": "primary", "role": null, "expr": "order_id", "metadata": null, "label": null, "config": null}],
    "measures": [{"name": "total", "agg": "sum", "description": null, "create_metric": false, "expr": "amount", "agg_params": null,
      "metadata": null, "non_additive_dimension": null, "agg_time_dimension": null, "label": null, "config": null}],
    "dimensions": [
      {"name": "ordered_at", "description": null, "type": "time", "is_partition": false, "expr": null, "metadata": null, "label": null, "config": null,
       "type_params": {"time_granularity": "day", "validity_params": null}},
      {"name": "status", "description": null, "type": "categorical", "is_partition": false, "type_params": null, "expr": null, "metadata": null, "label": null, "config": null}]
  }],
  "metrics": [
    {"name": "total", "description": null, "type": "simple", "label": "Total", "metadata": null, "config": null, "time_granularity": null,
     "filter": {"where_filters": [{"where_sql_template": "{{ Dimension('order__status') }} = 'done'"}]},
     "type_params": {"measure": {"name": "total", "filter": null, "alias": null, "join_to_timespine": false, "fill_nulls_with": null},
       "numerator": null, "denominator": null, "expr": null, "window": null, "grain_to_date": null, "metrics": [], "conversion_type_params": null,
       "cumulative_type_params": null, "input_measures": [{"name": "total", "filter": null, "alias": null, "join_to_timespine": false, "fill_nulls_with": null}],
       "join_to_timespine": false, "fill_nulls_with": null, "metric_aggregation_params": null}},
    {"name": "share", "description": null, "type": "ratio", "label": null, "metadata": null, "config": null, "time_granularity": null, "filter": null,
     "type_params": {"measure": null, "numerator": {"name": "total", "filter": null, "alias": null, "offset_window": null, "offset_to_grain": null},
       "denominator": {"name": "total", "filter": {"where_filters": []}, "alias": null, "offset_window": null, "offset_to_grain": null},
       "expr": null, "window": null, "grain_to_date": null, "metrics": [], "input_measures": [], "metric_aggregation_params": null}}
  ],
  "project_configuration": {"time_spine_table_configurations": [], "metadata": null, "dsi_package_version": {}},
  "saved_queries": []
}`
	r, err := Read([]importread.File{{Path: "target/semantic_manifest.json", Data: []byte(manifest)}})
	require.NoError(t, err)
	m := entriesOf(r, "metric")
	assert.Equal(t, importread.Imported, m["total"].Status, m["total"].Reason)
	assert.Equal(t, importread.Refused, m["share"].Status)
	assert.Contains(t, m["share"].Reason, "its input total has its own filter", "a filtered input metric cannot be a ratio's term")
	assert.Equal(t, importread.Imported, entriesOf(r, "measure")["orders.total"].Status)
	assert.Equal(t, []string{"presentation keys are not carried: label"}, m["total"].Notes, "a null presentation key is no key")
	require.Len(t, r.Definitions.Models, 1)
	assert.Equal(t, "shop.orders", r.Definitions.Models[0].Table)
}
