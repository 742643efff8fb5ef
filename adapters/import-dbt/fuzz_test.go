package dbt

import (
	"errors"
	"testing"

	"sutura.dev/adapters/importread"
)

// FuzzRead reads arbitrary bytes as a project's YAML file and as a
// semantic_manifest.json: Read never panics, fails only with ErrMalformed,
// and gives every construct it lists a status. The seeds are in
// testdata/fuzz/FuzzRead.
func FuzzRead(f *testing.F) {
	f.Add([]byte(ordersModel + "metrics:\n" + simple("t", "order_total", `"{{ Dimension('order__status') }} = 'a'"`)))
	f.Add([]byte(customersModel))
	f.Add([]byte(`{"semantic_models": [{"name": "m", "node_relation": {"schema_name": "s", "alias": "t"}}], "metrics": [], "project_configuration": {}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, name := range []string{"models/f.yml", "semantic_manifest.json"} {
			r, err := Read([]importread.File{{Path: name, Data: data}})
			if err != nil {
				if !errors.Is(err, ErrMalformed) {
					t.Fatalf("an error that is not ErrMalformed: %v", err)
				}
				continue
			}
			for _, e := range r.Entries {
				if e.Status != importread.Imported && e.Status != importread.Refused && e.Status != importread.Ignored {
					t.Fatalf("entry %s %s has no status", e.Kind, e.Name)
				}
			}
		}
	})
}
