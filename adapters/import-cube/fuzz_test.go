package cube

import (
	"errors"
	"testing"

	"sutura.dev/adapters/importread"
)

// FuzzRead reads arbitrary bytes as a model's YAML file: Read never
// panics, fails only with ErrMalformed, and gives every construct it
// lists a status. The seeds are in testdata/fuzz/FuzzRead.
func FuzzRead(f *testing.F) {
	f.Add([]byte(shop))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Read([]importread.File{{Path: "model/f.yml", Data: data}})
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
