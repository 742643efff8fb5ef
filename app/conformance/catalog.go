package conformance

import (
	"encoding/json"
	"testing"

	"sutura.dev/app"
	"sutura.dev/domain"
	"sutura.dev/semantic"
)

// CatalogReader reads the demo catalogue (examples/demo/catalog, in the
// format of the catalogue adapter under test) into a pinned bundle
// stamped with version.
type CatalogReader func(version string) (*domain.Bundle, error)

// RunCatalog is the contract suite of a catalogue adapter, the producer of
// the bundles app's Catalog port hands out: read the demo catalogue with
// read and check that
//   - it holds the demo's definitions (DemoDefinitions, descriptions
//     aside), so every reader of the same catalogue plans the same
//     questions alike;
//   - the version label is stamped on the bundle and not digested;
//   - reading is deterministic: the same catalogue, the same digest;
//   - the bundle is one app serves: a Catalog holds it, every metric is
//     described to the operator, and every anchored metric's anchor
//     question compiles.
func RunCatalog(t *testing.T, read CatalogReader) {
	t.Helper()
	want, err := DemoBundle(demoSource)
	if err != nil {
		t.Fatal(err)
	}
	b, err := read("v1")
	if err != nil {
		t.Fatalf("the demo catalogue does not read: %v", err)
	}
	t.Run("holds the demo definitions", func(t *testing.T) {
		got, exp := withoutProse(t, b.Definitions()), withoutProse(t, want.Definitions())
		if got != exp {
			t.Fatalf("the definitions differ from the demo's:\n got %s\nwant %s", got, exp)
		}
	})
	t.Run("stamps the version without digesting it", func(t *testing.T) {
		again, err := read("v2")
		if err != nil {
			t.Fatal(err)
		}
		if b.Version() != "v1" || again.Version() != "v2" {
			t.Fatalf("versions %q and %q, want v1 and v2", b.Version(), again.Version())
		}
		if again.Digest() != b.Digest() {
			t.Fatalf("the version label moved the digest: %s and %s", b.Digest(), again.Digest())
		}
	})
	t.Run("is deterministic", func(t *testing.T) {
		for range 3 {
			again, err := read("v1")
			if err != nil {
				t.Fatal(err)
			}
			if again.Digest() != b.Digest() {
				t.Fatalf("a second read gives digest %s, the first %s", again.Digest(), b.Digest())
			}
		}
	})
	t.Run("is served by app", func(t *testing.T) {
		cat, err := app.NewSwappableCatalog(b)
		if err != nil {
			t.Fatal(err)
		}
		if cat.Bundle() != b {
			t.Fatal("the catalogue does not hand out the bundle it holds")
		}
		view := app.DescribeBundle(b, domain.LocalOperator)
		if len(view.Metrics) != len(b.Definitions().Metrics) || view.DefinitionDigest != b.Digest() {
			t.Fatalf("the operator is shown %d of %d metrics", len(view.Metrics), len(b.Definitions().Metrics))
		}
		for _, name := range app.AnchoredMetrics(b) {
			m, _ := b.Metric(name)
			r := m.Anchor.Range
			q := domain.Question{Metrics: []string{name}, Grain: m.CoarsestGrain(), Range: domain.TimeSpan{Fixed: &r}}
			if _, reason := semantic.Compile(b, domain.LocalOperator, q, r.Start); reason != nil {
				t.Errorf("the anchor of %s does not compile: %s", name, reason.Detail())
			}
		}
	})
}

// demoSource is the source alias of the demo catalogue's models.
const demoSource = "demo"

// withoutProse is the JSON of d without its descriptions, which carry no
// meaning for a question.
func withoutProse(t *testing.T, d *domain.Definitions) string {
	t.Helper()
	js, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var c domain.Definitions
	if err := json.Unmarshal(js, &c); err != nil {
		t.Fatal(err)
	}
	for i := range c.Models {
		c.Models[i].Description = ""
		for j := range c.Models[i].Columns {
			c.Models[i].Columns[j].Description = ""
		}
	}
	for i := range c.Relationships {
		c.Relationships[i].Description = ""
	}
	for i := range c.Metrics {
		c.Metrics[i].Description = ""
		for j := range c.Metrics[i].Dimensions {
			c.Metrics[i].Dimensions[j].Description = ""
		}
	}
	b, err := domain.NewBundle("", c, domain.Knowledge{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(b.Definitions())
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
