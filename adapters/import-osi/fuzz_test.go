package osi

import (
	"errors"
	"os"
	"testing"

	"sutura.dev/adapters/importread"
)

// FuzzRead reads arbitrary bytes as an OSI file: Read never panics, fails
// only with ErrMalformed, and gives every construct it lists a status.
// The seeds are in testdata/fuzz/FuzzRead.
func FuzzRead(f *testing.F) {
	for _, p := range []string{"testdata/shop/shop.yaml", "testdata/tpcds_semantic_model.yaml"} {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Read([]importread.File{{Path: "model.yaml", Data: data}})
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("an error that is not ErrMalformed: %v", err)
			}
			return
		}
		for _, e := range r.Entries {
			if e.Status != importread.Imported && e.Status != importread.Refused && e.Status != importread.Ignored {
				t.Fatalf("entry %s %s has no status", e.Kind, e.Name)
			}
		}
	})
}
