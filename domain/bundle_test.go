package domain

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var hex64 = regexp.MustCompile(`^[0-9a-f]{64}$`)

func mustBundle(t testing.TB, version string, d Definitions, k Knowledge) *Bundle {
	t.Helper()
	b, err := NewBundle(version, d, k)
	if err != nil {
		t.Fatalf("NewBundle: %v", err)
	}
	return b
}

func fixtureDigest(t testing.TB, change func(d *Definitions, k *Knowledge)) *Bundle {
	t.Helper()
	d, k := fixture(t)
	if change != nil {
		change(&d, &k)
	}
	return mustBundle(t, "v1", d, k)
}

func TestBundleDigestShape(t *testing.T) {
	b := fixtureDigest(t, nil)
	if !hex64.MatchString(b.Digest()) {
		t.Fatalf("Digest() = %q, want 64 lowercase hex", b.Digest())
	}
	canon, err := b.Canonical()
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(canon)
	if b.Digest() != hex.EncodeToString(sum[:]) {
		t.Fatal("Digest() is not the SHA-256 of Canonical()")
	}
	for _, m := range b.Definitions().Metrics {
		md := b.MetricDigest(m.Name)
		if !hex64.MatchString(md) {
			t.Errorf("MetricDigest(%s) = %q", m.Name, md)
		}
		if md == b.Digest() {
			t.Errorf("MetricDigest(%s) equals the bundle digest", m.Name)
		}
	}
	if b.MetricDigest("net_sales") == b.MetricDigest("paid_ratio") {
		t.Error("two metrics share a digest")
	}
	if b.MetricDigest("nope") != "" {
		t.Error("an unknown metric has a digest")
	}
	if again := fixtureDigest(t, nil); again.Digest() != b.Digest() || again.MetricDigest("net_sales") != b.MetricDigest("net_sales") {
		t.Fatal("the same catalogue digests differently twice")
	}
}

// TestCanonicalJSONForm: object keys sorted at every depth, no
// insignificant whitespace, no HTML escaping.
func TestCanonicalJSONForm(t *testing.T) {
	b := fixtureDigest(t, func(d *Definitions, k *Knowledge) {
		d.Models[0].Description = "Revenue <net> & more"
	})
	canon, err := b.Canonical()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(canon, []byte("Revenue <net> & more")) {
		t.Error("canonical JSON escapes HTML characters")
	}
	if bytes.Contains(canon, []byte("\n")) {
		t.Error("canonical JSON holds a newline")
	}
	compact := new(bytes.Buffer)
	if err := json.Compact(compact, canon); err != nil || !bytes.Equal(compact.Bytes(), canon) {
		t.Error("canonical JSON is not compact")
	}
	assertKeysSorted(t, canon)
	if !bytes.HasPrefix(canon, []byte(`{"definitions":{"metrics":[`)) {
		t.Errorf("canonical JSON starts %s", canon[:40])
	}
}

// assertKeysSorted walks a JSON document and fails if any object's keys
// are not in ascending byte order.
func assertKeysSorted(t *testing.T, doc []byte) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(doc))
	type frame struct {
		obj     bool
		lastKey string
		wantKey bool
		first   bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.obj && top.wantKey {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && stack[len(stack)-1].obj {
					stack[len(stack)-1].wantKey = true
				}
				continue
			}
			key := tok.(string)
			if !top.first && key <= top.lastKey {
				t.Fatalf("key %q follows %q", key, top.lastKey)
			}
			top.lastKey, top.first, top.wantKey = key, false, false
			continue
		}
		switch d := tok.(type) {
		case json.Delim:
			switch d {
			case '{':
				stack = append(stack, &frame{obj: true, wantKey: true, first: true})
				continue
			case '[':
				stack = append(stack, &frame{})
				continue
			case ']':
				stack = stack[:len(stack)-1]
			}
		}
		if len(stack) > 0 && stack[len(stack)-1].obj {
			stack[len(stack)-1].wantKey = true
		}
	}
}

func reverse[T any](xs []T) { slices.Reverse(xs) }

func TestDigestIgnoresOrderOfSets(t *testing.T) {
	base := fixtureDigest(t, nil)
	tests := []struct {
		name   string
		change func(d *Definitions, k *Knowledge)
	}{
		{"models", func(d *Definitions, k *Knowledge) { reverse(d.Models) }},
		{"relationships", func(d *Definitions, k *Knowledge) { reverse(d.Relationships) }},
		{"metrics", func(d *Definitions, k *Knowledge) { reverse(d.Metrics) }},
		{"columns", func(d *Definitions, k *Knowledge) {
			for i := range d.Models {
				reverse(d.Models[i].Columns)
			}
		}},
		{"allowlist values", func(d *Definitions, k *Knowledge) {
			for i := range metricNamed(t, d, "net_sales").Dimensions {
				reverse(metricNamed(t, d, "net_sales").Dimensions[i].Values)
			}
		}},
		{"grains", func(d *Definitions, k *Knowledge) { reverse(metricNamed(t, d, "net_sales").Grains) }},
		{"required filters", func(d *Definitions, k *Knowledge) { reverse(metricNamed(t, d, "net_sales").RequiredFilters) }},
		{"dimensions", func(d *Definitions, k *Knowledge) { reverse(metricNamed(t, d, "net_sales").Dimensions) }},
		{"audience ids", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "paid_ratio").Audience.Restricted = []string{"finance", "audit"}
		}},
		{"glossary", func(d *Definitions, k *Knowledge) { reverse(k.Glossary) }},
		{"caveat referents", func(d *Definitions, k *Knowledge) { reverse(k.Caveats[0].About) }},
		{"everything at once", func(d *Definitions, k *Knowledge) {
			reverse(d.Models)
			reverse(d.Relationships)
			reverse(d.Metrics)
			for i := range d.Metrics {
				reverse(d.Metrics[i].Grains)
				reverse(d.Metrics[i].Dimensions)
				reverse(d.Metrics[i].RequiredFilters)
			}
			reverse(k.Glossary)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fixtureDigest(t, tt.change)
			want := base
			if tt.name == "audience ids" {
				// Compare two orders of the same two ids with each other.
				want = fixtureDigest(t, func(d *Definitions, k *Knowledge) {
					metricNamed(t, d, "paid_ratio").Audience.Restricted = []string{"audit", "finance"}
				})
			}
			if got.Digest() != want.Digest() {
				t.Errorf("reordering %s moved the digest", tt.name)
			}
			for _, m := range []string{"net_sales", "paid_ratio"} {
				if got.MetricDigest(m) != want.MetricDigest(m) {
					t.Errorf("reordering %s moved the digest of %s", tt.name, m)
				}
			}
		})
	}
}

// TestDigestIgnoresOrderOfKnowledgeSets uses a knowledge with several
// entries of every kind.
func TestDigestIgnoresOrderOfKnowledgeSets(t *testing.T) {
	build := func(rev bool) string {
		d, k := fixture(t)
		k.Glossary = append(k.Glossary, Glossary{Term: "sales", Synonyms: []string{"takings", "income", "receipts"}, Means: Meaning{Metric: "net_sales"}})
		k.Caveats = append(k.Caveats, Caveat{Name: "paid_lag", About: []string{"paid_ratio", "orders"}})
		k.NotDefined = append(k.NotDefined, NotDefined{Phrase: "churn", Synonyms: []string{"attrition", "leavers"}})
		k.Examples = append(k.Examples, Example{Name: "paid_share", Asked: []string{"share paid", "what fraction paid", "paid rate"}, Question: Question{Metrics: []string{"paid_ratio"}, Grain: Month, Range: TimeSpan{Relative: &Relative{Count: 1, Unit: Month}}}})
		d.Models[0].PrimaryKey = []string{"order_id", "store_id"}
		if rev {
			reverse(k.Glossary)
			reverse(k.Caveats)
			reverse(k.NotDefined)
			reverse(k.Examples)
			for i := range k.Glossary {
				reverse(k.Glossary[i].Synonyms)
			}
			for i := range k.Caveats {
				reverse(k.Caveats[i].About)
			}
			for i := range k.NotDefined {
				reverse(k.NotDefined[i].Synonyms)
			}
			for i := range k.Examples {
				reverse(k.Examples[i].Asked)
			}
			reverse(d.Models[0].PrimaryKey)
		}
		return mustBundle(t, "v1", d, k).Digest()
	}
	if build(false) != build(true) {
		t.Fatal("the order of knowledge entries, synonyms, referents, phrasings or primary key columns moved the digest")
	}
}

func TestDigestIgnoresTextLayout(t *testing.T) {
	base := fixtureDigest(t, nil)
	tests := []struct {
		name   string
		change func(d *Definitions, k *Knowledge)
	}{
		{"model description CRLF and blank lines", func(d *Definitions, k *Knowledge) {
			d.Models[0].Description = "\r\n\r\nOne row per order.\r\n\r\n"
		}},
		{"model description trailing spaces and tabs", func(d *Definitions, k *Knowledge) {
			d.Models[0].Description = "One row per order. \t \n"
		}},
		{"metric description", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "net_sales").Description = "\nSales net of refunds.  \r\n"
		}},
		{"column description", func(d *Definitions, k *Knowledge) {
			d.Models[0].Columns[3].Description = "When the order was placed.\r\n\r\n"
		}},
		{"glossary note", func(d *Definitions, k *Knowledge) {
			k.Glossary[1].Note = "\r\nOnline only. \r\n"
		}},
		{"caveat note", func(d *Definitions, k *Knowledge) {
			k.Caveats[0].Note = "Refunds arrive late.\n\n\n"
		}},
		{"not-defined note", func(d *Definitions, k *Knowledge) {
			k.NotDefined[0].Note = "Costs are not modelled.  "
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fixtureDigest(t, tt.change); got.Digest() != base.Digest() {
				t.Errorf("%s moved the digest", tt.name)
			}
		})
	}
	// Multi-line prose: only line endings and trailing spaces differ.
	lf := fixtureDigest(t, func(d *Definitions, k *Knowledge) {
		metricNamed(t, d, "net_sales").Description = "Line one.\n\nLine two.\nLine three."
	})
	crlf := fixtureDigest(t, func(d *Definitions, k *Knowledge) {
		metricNamed(t, d, "net_sales").Description = "Line one.  \r\n\r\nLine two.\t\r\nLine three.\r\n"
	})
	if lf.Digest() != crlf.Digest() || lf.MetricDigest("net_sales") != crlf.MetricDigest("net_sales") {
		t.Error("CRLF and trailing spaces inside prose moved the digest")
	}
	// A blank line inside prose is meaning (a paragraph break).
	joined := fixtureDigest(t, func(d *Definitions, k *Knowledge) {
		metricNamed(t, d, "net_sales").Description = "Line one.\nLine two.\nLine three."
	})
	if joined.Digest() == lf.Digest() {
		t.Error("removing a paragraph break did not move the digest")
	}
}

func TestDigestMovesWithMeaning(t *testing.T) {
	base := fixtureDigest(t, nil)
	tests := []struct {
		name   string
		change func(d *Definitions, k *Knowledge)
	}{
		{"model description", func(d *Definitions, k *Knowledge) { d.Models[0].Description = "One row per order line." }},
		{"metric description", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "net_sales").Description = "Sales gross of refunds."
		}},
		{"column description", func(d *Definitions, k *Knowledge) { d.Models[0].Columns[3].Description = "When it shipped." }},
		{"dimension description", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "net_sales").Dimensions[0].Description = "Where it was sold."
		}},
		{"required filter value", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "net_sales").RequiredFilters[0].Value = "completed"
		}},
		{"required filter operator", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "net_sales").RequiredFilters[0].Op = NotEquals
		}},
		{"allowlist value", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "net_sales").Dimensions[1].Values[2] = "North West"
		}},
		{"allowlist value added", func(d *Definitions, k *Knowledge) {
			dim := &metricNamed(t, d, "net_sales").Dimensions[1]
			dim.Values = append(dim.Values, "south")
		}},
		{"via chain", func(d *Definitions, k *Knowledge) {
			d.Relationships = append(d.Relationships, Relationship{Name: "order_customer_b", Origin: Endpoint{"orders", "customer_id"}, Target: Endpoint{"customers", "customer_id"}, JoinType: ManyToOne})
			metricNamed(t, d, "net_sales").Dimensions[1].Via = []string{"order_customer_b"}
			metricNamed(t, d, "net_sales").Dimensions[2].Via = []string{"order_customer_b", "customer_segment"}
		}},
		{"table", func(d *Definitions, k *Knowledge) { d.Models[0].Table = "sales.orders_v2" }},
		{"source", func(d *Definitions, k *Knowledge) { d.Models[0].Source = "lake" }},
		{"column type", func(d *Definitions, k *Knowledge) { d.Models[0].Columns[4].Type = TypeFloat }},
		{"aggregate", func(d *Definitions, k *Knowledge) { metricNamed(t, d, "net_sales").Measure.Simple.Aggregate = Avg }},
		{"zero denominator rule", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "paid_ratio").Measure.Ratio.ZeroDenominator = Fails
		}},
		{"grain added", func(d *Definitions, k *Knowledge) {
			m := metricNamed(t, d, "net_sales")
			m.Grains = append(m.Grains, Week)
		}},
		{"filterable dropped", func(d *Definitions, k *Knowledge) {
			dim := &metricNamed(t, d, "net_sales").Dimensions[1]
			dim.Filterable, dim.Values = false, nil
		}},
		{"anchor value", func(d *Definitions, k *Knowledge) { metricNamed(t, d, "net_sales").Anchor.Value = "1234.6" }},
		{"audience", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "paid_ratio").Audience = Audience{}
		}},
		{"glossary synonym", func(d *Definitions, k *Knowledge) {
			k.Glossary[0].Synonyms = append(k.Glossary[0].Synonyms, "sales")
		}},
		{"caveat note", func(d *Definitions, k *Knowledge) { k.Caveats[0].Note = "Refunds arrive early." }},
		{"example question", func(d *Definitions, k *Knowledge) { k.Examples[0].Question.Range.Relative.Count = 6 }},
		{"description case", func(d *Definitions, k *Knowledge) { d.Models[0].Description = "one row per order." }},
		{"inner spacing of prose", func(d *Definitions, k *Knowledge) { d.Models[0].Description = "One row  per order." }},
	}
	seen := map[string]string{base.Digest(): "the fixture"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fixtureDigest(t, tt.change)
			if got.Digest() == base.Digest() {
				t.Fatalf("changing the %s did not move the digest", tt.name)
			}
			if other, dup := seen[got.Digest()]; dup {
				t.Errorf("changing the %s digests like %s", tt.name, other)
			}
			seen[got.Digest()] = tt.name
		})
	}
}

func TestVersionLabelIsNotDigested(t *testing.T) {
	d1, k1 := fixture(t)
	d2, k2 := fixture(t)
	a := mustBundle(t, "v1", d1, k1)
	b := mustBundle(t, "a1b2c3d 2026-03-18", d2, k2)
	if a.Version() != "v1" || b.Version() != "a1b2c3d 2026-03-18" {
		t.Fatalf("Version() = %q, %q", a.Version(), b.Version())
	}
	if a.Digest() != b.Digest() || a.MetricDigest("net_sales") != b.MetricDigest("net_sales") {
		t.Fatal("the version label moved the digest")
	}
	ca, _ := a.Canonical()
	if bytes.Contains(ca, []byte("v1")) {
		t.Error("the canonical form holds the version label")
	}
}

func TestMetricDigest(t *testing.T) {
	base := fixtureDigest(t, nil)
	tests := []struct {
		name      string
		change    func(d *Definitions, k *Knowledge)
		netSales  bool // whether net_sales's digest must move
		paidRatio bool
	}{
		{"its model's table", func(d *Definitions, k *Knowledge) { d.Models[0].Table = "sales.orders_v2" }, true, true},
		{"its own description", func(d *Definitions, k *Knowledge) { metricNamed(t, d, "net_sales").Description = "x" }, true, false},
		{"an unrelated metric", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "paid_ratio").Measure.Ratio.ZeroDenominator = Fails
		}, false, true},
		{"a metric added", func(d *Definitions, k *Knowledge) {
			m := *metricNamed(t, d, "paid_ratio")
			m.Name = "paid_ratio_2"
			d.Metrics = append(d.Metrics, m)
		}, false, false},
		{"a relationship its dimensions use", func(d *Definitions, k *Knowledge) {
			d.Relationships[1].Description = "Segment of the customer."
		}, true, false},
		{"a relationship nothing uses", func(d *Definitions, k *Knowledge) {
			d.Relationships[4].Description = "Lines of an order."
		}, false, false},
		{"a model a dimension is read from", func(d *Definitions, k *Knowledge) { d.Models[2].Table = "crm.public.segments_v2" }, true, false},
		{"knowledge", func(d *Definitions, k *Knowledge) { k.Caveats[0].Note = "Refunds arrive early." }, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fixtureDigest(t, tt.change)
			if moved := got.MetricDigest("net_sales") != base.MetricDigest("net_sales"); moved != tt.netSales {
				t.Errorf("net_sales digest moved = %v, want %v", moved, tt.netSales)
			}
			if moved := got.MetricDigest("paid_ratio") != base.MetricDigest("paid_ratio"); moved != tt.paidRatio {
				t.Errorf("paid_ratio digest moved = %v, want %v", moved, tt.paidRatio)
			}
			if got.Digest() == base.Digest() {
				t.Errorf("the bundle digest did not move")
			}
		})
	}
}

func TestBundleLookups(t *testing.T) {
	b := fixtureDigest(t, nil)
	if m, ok := b.Metric("net_sales"); !ok || m.Name != "net_sales" || m.Model != "orders" {
		t.Errorf("Metric(net_sales) = %v, %v", m, ok)
	}
	if _, ok := b.Metric("Net_Sales"); ok {
		t.Error("Metric lookup folded case")
	}
	if m, ok := b.Model("stores"); !ok || m.Table != "stores_dim" {
		t.Errorf("Model(stores) = %v, %v", m, ok)
	}
	if r, ok := b.Relationship("store_orders"); !ok || r.JoinType != OneToMany {
		t.Errorf("Relationship(store_orders) = %v, %v", r, ok)
	}
	for _, name := range []string{"nope", ""} {
		if _, ok := b.Metric(name); ok {
			t.Errorf("Metric(%q) found", name)
		}
		if _, ok := b.Model(name); ok {
			t.Errorf("Model(%q) found", name)
		}
		if _, ok := b.Relationship(name); ok {
			t.Errorf("Relationship(%q) found", name)
		}
	}
	// The definitions come back in canonical order.
	var names []string
	for _, m := range b.Definitions().Models {
		names = append(names, m.Name)
	}
	if !slices.IsSorted(names) || len(names) != 5 {
		t.Errorf("models not in canonical order: %v", names)
	}
	ns, _ := b.Metric("net_sales")
	if !slices.Equal(ns.Grains, []Grain{Day, Month, Quarter}) {
		t.Errorf("grains = %v", ns.Grains)
	}
	var dims []string
	for _, d := range ns.Dimensions {
		dims = append(dims, d.Name)
	}
	if !slices.Equal(dims, []string{"channel", "city", "region", "segment"}) {
		t.Errorf("dimensions = %v", dims)
	}
	if seg, _ := ns.Dimension("segment"); !slices.Equal(seg.Via, []string{"order_customer", "customer_segment"}) {
		t.Errorf("a via chain lost its order: %v", seg.Via)
	}
	if reg, _ := ns.Dimension("region"); !slices.Equal(reg.Values, []string{"North East", "east", "west"}) {
		t.Errorf("allowlist not sorted by bytes: %v", reg.Values)
	}
	if len(b.Knowledge().Glossary) != 2 || b.Knowledge().Glossary[0].Term != "revenue" {
		t.Errorf("knowledge: %+v", b.Knowledge().Glossary)
	}
}

// TestEmptyKnowledgeDigestsLikeAbsentKnowledge: nil and empty lists are the
// same content.
func TestEmptyKnowledgeDigestsLikeAbsentKnowledge(t *testing.T) {
	d1, _ := fixture(t)
	d2, _ := fixture(t)
	a := mustBundle(t, "v", d1, Knowledge{})
	b := mustBundle(t, "v", d2, Knowledge{Glossary: []Glossary{}, Caveats: []Caveat{}, NotDefined: []NotDefined{}, Examples: []Example{}})
	if a.Digest() != b.Digest() {
		t.Fatal("nil and empty knowledge lists digest differently")
	}
	c, _ := a.Canonical()
	if !strings.HasSuffix(string(c), `"knowledge":{"caveats":[],"examples":[],"glossary":[],"not_defined":[]}}`) {
		t.Errorf("empty knowledge renders as %s", c[len(c)-80:])
	}
}

// TestNilAndEmptyListsDigestAlike: a loader may build an absent list as nil
// or as an empty slice; both mean "none" and must digest alike.
func TestNilAndEmptyListsDigestAlike(t *testing.T) {
	build := func(empty bool) *Bundle {
		d, k := docExample()
		d.Metrics = append(d.Metrics, Metric{
			Name: "order_count", Model: "orders", TimeColumn: "ordered_on", Grains: []Grain{Day},
			Measure: &Measure{Simple: &Term{Aggregate: Count, Column: "amount"}},
		})
		k.Examples = []Example{{Name: "ex", Question: Question{Metrics: []string{"revenue"}, Grain: Day, Range: TimeSpan{Relative: &Relative{Count: 1, Unit: Day}}}}}
		if empty {
			d.Relationships = []Relationship{}
			d.Metrics[1].Dimensions = []Dimension{}
			d.Metrics[1].RequiredFilters = []RequiredFilter{}
			k.Examples[0].Asked = []string{}
			k.Examples[0].Question.Dimensions = []string{}
		}
		return mustBundle(t, "v", d, k)
	}
	a, b := build(false), build(true)
	if a.Digest() != b.Digest() || a.MetricDigest("order_count") != b.MetricDigest("order_count") {
		ca, _ := a.Canonical()
		cb, _ := b.Canonical()
		t.Fatalf("nil and empty lists digest differently:\n%s\n%s", ca, cb)
	}
	c, _ := a.Canonical()
	if bytes.Contains(c, []byte("null")) {
		t.Errorf("the canonical form holds null: %s", c)
	}
}
