package domain

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// docExample is the tiny catalogue of the worked example in
// docs/bundle-digest.md. The test below computes its canonical form and
// digests and checks that the document shows exactly these, so the
// document cannot drift from the code.
func docExample() (Definitions, Knowledge) {
	defs := Definitions{
		Models: []Model{{
			Name:   "orders",
			Source: "shop",
			Table:  "public.orders",
			Columns: []ModelColumn{
				{Name: "ordered_on", Type: TypeDate},
				{Name: "amount", Type: TypeDecimal},
				{Name: "channel"},
			},
			Description: "One row per order.\r\n",
		}},
		Metrics: []Metric{{
			Name:       "revenue",
			Model:      "orders",
			Measure:    &Measure{Simple: &Term{Aggregate: Sum, Column: "amount"}},
			TimeColumn: "ordered_on",
			Grains:     []Grain{Month, Day},
			Dimensions: []Dimension{
				{Name: "channel", Column: "channel", Values: []string{"web", "store"}, Filterable: true},
			},
			Description: "Order amounts.  \n",
		}},
	}
	know := Knowledge{
		Glossary: []Glossary{{Term: "sales", Means: Meaning{Metric: "revenue"}}},
	}
	return defs, know
}

// canonicalEncode writes v as the document describes: object keys sorted
// by bytes, no whitespace, no HTML escaping, no trailing newline. It is a
// second implementation, independent of bundle.go's.
func canonicalEncode(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// metricPart builds the per-metric document of docs/bundle-digest.md from
// the bundle's canonical form: {"metric", "model", "relationships"}.
func metricPart(t *testing.T, canon []byte, metric string) []byte {
	t.Helper()
	var whole struct {
		Definitions struct {
			Metrics       []map[string]any `json:"metrics"`
			Models        []map[string]any `json:"models"`
			Relationships []map[string]any `json:"relationships"`
		} `json:"definitions"`
	}
	dec := json.NewDecoder(bytes.NewReader(canon))
	dec.UseNumber()
	if err := dec.Decode(&whole); err != nil {
		t.Fatal(err)
	}
	var m, model map[string]any
	for _, x := range whole.Definitions.Metrics {
		if x["name"] == metric {
			m = x
		}
	}
	for _, x := range whole.Definitions.Models {
		if x["name"] == m["model"] {
			model = x
		}
	}
	used := map[any]bool{}
	for _, d := range m["dimensions"].([]any) {
		if via, ok := d.(map[string]any)["via"].([]any); ok {
			for _, r := range via {
				used[r] = true
			}
		}
	}
	rels := []any{}
	joined := map[any]bool{}
	for _, r := range whole.Definitions.Relationships {
		if used[r["name"]] {
			rels = append(rels, r)
			joined[r["origin"].(map[string]any)["model"]] = true
			joined[r["target"].(map[string]any)["model"]] = true
		}
	}
	part := map[string]any{"metric": m, "model": model, "relationships": rels}
	var others []any
	for _, x := range whole.Definitions.Models {
		if joined[x["name"]] && x["name"] != m["model"] {
			others = append(others, x)
		}
	}
	if len(others) > 0 {
		part["joined_models"] = others
	}
	return canonicalEncode(t, part)
}

func TestDocWorkedExample(t *testing.T) {
	d, k := docExample()
	b, err := NewBundle("2026.03", d, k)
	if err != nil {
		t.Fatal(err)
	}
	canon, err := b.Canonical()
	if err != nil {
		t.Fatal(err)
	}
	// The documented rules, re-implemented, give the same bytes and digests.
	var tree any
	dec := json.NewDecoder(bytes.NewReader(canon))
	dec.UseNumber()
	if err := dec.Decode(&tree); err != nil {
		t.Fatal(err)
	}
	if again := canonicalEncode(t, tree); !bytes.Equal(again, canon) {
		t.Fatalf("the canonical form is not sorted and compact:\n%s\n%s", canon, again)
	}
	if sha256Hex(canon) != b.Digest() {
		t.Fatal("the digest is not the SHA-256 of the canonical form")
	}
	part := metricPart(t, canon, "revenue")
	if sha256Hex(part) != b.MetricDigest("revenue") {
		t.Fatalf("the metric digest is not the SHA-256 of the documented per-metric form:\n%s", part)
	}

	doc, err := os.ReadFile("../docs/bundle-digest.md")
	if err != nil {
		t.Fatalf("the digest is documented in docs/bundle-digest.md: %v", err)
	}
	text := string(doc)
	for _, x := range []struct{ what, want string }{
		{"canonical JSON", string(canon)},
		{"bundle digest", b.Digest()},
		{"per-metric JSON", string(part)},
		{"metric digest", b.MetricDigest("revenue")},
	} {
		if !strings.Contains(text, x.want) {
			t.Errorf("docs/bundle-digest.md does not show the %s of its worked example:\n%s", x.what, x.want)
		}
	}
}

// TestMetricDigestMatchesDocumentedForm applies the per-metric rule to the
// larger fixture, whose dimensions use relationships.
func TestMetricDigestMatchesDocumentedForm(t *testing.T) {
	b := fixtureDigest(t, nil)
	canon, err := b.Canonical()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"net_sales", "paid_ratio"} {
		part := metricPart(t, canon, m)
		if sha256Hex(part) != b.MetricDigest(m) {
			t.Errorf("%s: the metric digest is not the SHA-256 of\n%s", m, part)
		}
	}
	// net_sales reaches customers, segments and stores; paid_ratio nothing.
	for m, want := range map[string]string{
		"net_sales":  "customer_segment,order_customer,store_orders",
		"paid_ratio": "",
	} {
		var p struct {
			Relationships []struct{ Name string } `json:"relationships"`
		}
		if err := json.Unmarshal(metricPart(t, canon, m), &p); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, r := range p.Relationships {
			names = append(names, r.Name)
		}
		if got := strings.Join(names, ","); got != want {
			t.Errorf("%s's part holds relationships %q, want %q", m, got, want)
		}
	}
}
