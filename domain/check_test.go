package domain

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

type loc struct{ kind, name, key string }

func (l loc) String() string { return l.kind + " " + l.name + ": " + l.key }

func locs(probs []*Problem) []loc {
	var out []loc
	for _, p := range probs {
		out = append(out, loc{p.Kind, p.Name, p.Key})
	}
	return out
}

func TestCheckFixtureIsConsistent(t *testing.T) {
	d, k := fixture(t)
	if probs := Check(&d, &k); len(probs) != 0 {
		t.Fatalf("the fixture has problems: %v", probs)
	}
}

// pv is a planted value: a value the catalogue author wrote that a problem
// must not quote.
const pv = "ZZplanted\u0007value"

func TestCheck(t *testing.T) {
	tests := []struct {
		name   string
		change func(d *Definitions, k *Knowledge)
		want   []loc
		reason string // a phrase the first problem's reason must hold
	}{
		// Names.
		{"duplicate model", func(d *Definitions, k *Knowledge) {
			d.Models = append(d.Models, Model{Name: "stores", Source: "w", Table: "other", Columns: []ModelColumn{{Name: "x"}}})
		}, []loc{{"model", "stores", "name"}}, "same name"},
		{"duplicate relationship", func(d *Definitions, k *Knowledge) {
			d.Relationships = append(d.Relationships, d.Relationships[0])
		}, []loc{{"relationship", "order_customer", "name"}}, "same name"},
		{"duplicate metric", func(d *Definitions, k *Knowledge) {
			m := *metricNamed(t, d, "paid_ratio")
			d.Metrics = append(d.Metrics, m)
		}, []loc{{"metric", "paid_ratio", "name"}}, "same name"},
		{"metrics differing only in case", func(d *Definitions, k *Knowledge) {
			m := *metricNamed(t, d, "paid_ratio")
			m.Name = "Paid_Ratio"
			d.Metrics = append(d.Metrics, m)
		}, []loc{{"metric", "Paid_Ratio", "name"}}, "only in case"},
		{"model name not an identifier", func(d *Definitions, k *Knowledge) {
			d.Models = append(d.Models, Model{Name: "bad-model", Source: "w", Table: "t", Columns: []ModelColumn{{Name: "x"}}})
		}, []loc{{"model", "bad-model", "name"}}, "identifier"},
		{"metric name not an identifier", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "paid_ratio").Name = "paid ratio"
		}, []loc{{"metric", "paid ratio", "name"}}, ""},
		{"source not an identifier", func(d *Definitions, k *Knowledge) {
			d.Models[3].Source = "ware-house"
		}, []loc{{"model", "stores", "source"}}, ""},
		{"table path with four segments", func(d *Definitions, k *Knowledge) {
			d.Models[3].Table = "a.b.c.stores_dim"
		}, []loc{{"model", "stores", "table"}}, "three segments"},
		{"table segment not an identifier", func(d *Definitions, k *Knowledge) {
			d.Models[3].Table = "dw.stores-dim"
		}, []loc{{"model", "stores", "table"}}, "segment"},
		{"empty table segment", func(d *Definitions, k *Knowledge) {
			d.Models[3].Table = "dw..stores_dim"
		}, []loc{{"model", "stores", "table"}}, "segment"},
		{"model without columns", func(d *Definitions, k *Knowledge) {
			d.Models = append(d.Models, Model{Name: "empty", Source: "w", Table: "empty_t"})
		}, []loc{{"model", "empty", "columns"}}, "no columns"},
		{"column declared twice, folding case", func(d *Definitions, k *Knowledge) {
			d.Models[3].Columns = append(d.Models[3].Columns, ModelColumn{Name: "City"})
		}, []loc{{"model", "stores", "columns[2]"}}, "twice"},
		{"column name not an identifier", func(d *Definitions, k *Knowledge) {
			d.Models[3].Columns = append(d.Models[3].Columns, ModelColumn{Name: "zip code"})
		}, []loc{{"model", "stores", "columns[2]"}}, ""},
		{"unknown column type", func(d *Definitions, k *Knowledge) {
			d.Models[3].Columns[1].Type = "varchar"
		}, []loc{{"model", "stores", "columns[1].type"}}, "type"},
		{"primary key names an unknown column", func(d *Definitions, k *Knowledge) {
			d.Models[0].PrimaryKey = []string{"order_id", "nope"}
		}, []loc{{"model", "orders", "primary_key[1]"}}, ""},
		{"model audience id not an identifier", func(d *Definitions, k *Knowledge) {
			d.Models[3].Audience = &Audience{Restricted: []string{"ok", "not ok"}}
		}, []loc{{"model", "stores", "audience.restricted[1]"}}, ""},
		{"metric audience id not an identifier", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "paid_ratio").Audience.Restricted = []string{"fin-ance"}
		}, []loc{{"metric", "paid_ratio", "audience.restricted[0]"}}, ""},

		// References.
		{"unknown model", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "paid_ratio").Model = "nope"
		}, []loc{{"metric", "paid_ratio", "model"}}, "model"},
		{"unknown dimension column", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "net_sales").Dimensions[0].Column = "nope"
		}, []loc{{"metric", "net_sales", "dimensions[0].column"}}, "model orders"},
		{"dimension column looked up on the reached model", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "net_sales").Dimensions[1].Column = "channel" // a column of orders, not customers
		}, []loc{{"metric", "net_sales", "dimensions[1].column"}}, "model customers"},
		{"unknown term column", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "net_sales").Measure.Simple.Column = "nope"
		}, []loc{{"metric", "net_sales", "measure.simple.column"}}, ""},
		{"unknown aggregate", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "net_sales").Measure.Simple.Aggregate = "median"
		}, []loc{{"metric", "net_sales", "measure.simple.aggregate"}}, "aggregate"},
		{"unknown count_if column", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "paid_ratio").Measure.Ratio.Numerator.CountIf = "nope"
		}, []loc{{"metric", "paid_ratio", "measure.ratio.numerator.count_if"}}, ""},
		{"count_if over a non-boolean column", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "paid_ratio").Measure.Ratio.Numerator.CountIf = "status"
		}, []loc{{"metric", "paid_ratio", "measure.ratio.numerator.count_if"}}, "boolean"},
		{"unknown denominator column", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "paid_ratio").Measure.Ratio.Denominator.Column = "nope"
		}, []loc{{"metric", "paid_ratio", "measure.ratio.denominator.column"}}, ""},
		{"term both count_if and aggregate", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "paid_ratio").Measure.Ratio.Numerator.Aggregate = Sum
		}, []loc{{"metric", "paid_ratio", "measure.ratio.numerator"}}, ""},
		{"zero_denominator missing", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "paid_ratio").Measure.Ratio.ZeroDenominator = ""
		}, []loc{{"metric", "paid_ratio", "measure.ratio.zero_denominator"}}, ""},
		{"measure with both simple and ratio", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "paid_ratio").Measure.Simple = &Term{Aggregate: Count, Column: "order_id"}
		}, []loc{{"metric", "paid_ratio", "measure"}}, ""},
		{"neither measure nor authored_sql", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "paid_ratio").Measure = nil
		}, []loc{{"metric", "paid_ratio", "measure"}}, "exactly one"},
		{"both measure and authored_sql", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "paid_ratio").AuthoredSQL = map[string]string{"postgres": "sum(x)"}
		}, []loc{{"metric", "paid_ratio", "measure"}}, "exactly one"},
		{"authored_sql alone is consistent", func(d *Definitions, k *Knowledge) {
			m := metricNamed(t, d, "paid_ratio")
			m.Measure = nil
			m.AuthoredSQL = map[string]string{"postgres": "percentile_cont(0.5)"}
		}, nil, ""},
		{"unknown time column", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "net_sales").TimeColumn = "nope"
		}, []loc{{"metric", "net_sales", "time_column"}}, ""},
		{"time column not a date", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "net_sales").TimeColumn = "amount"
		}, []loc{{"metric", "net_sales", "time_column"}}, "date or timestamp"},
		{"no grains", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "paid_ratio").Grains = nil
		}, []loc{{"metric", "paid_ratio", "grains"}}, ""},
		{"grain listed twice", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "paid_ratio").Grains = []Grain{Month, Month}
		}, []loc{{"metric", "paid_ratio", "grains[1]"}}, "twice"},
		{"unknown grain", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "paid_ratio").Grains = []Grain{Month, 9}
		}, []loc{{"metric", "paid_ratio", "grains[1]"}}, ""},

		// Relationships.
		{"relationship origin model unknown", func(d *Definitions, k *Knowledge) {
			d.Relationships = append(d.Relationships, Relationship{Name: "ghost", Origin: Endpoint{"nope", "x"}, Target: Endpoint{"customers", "customer_id"}, JoinType: ManyToOne})
		}, []loc{{"relationship", "ghost", "origin.model"}}, "model"},
		{"relationship target model unknown", func(d *Definitions, k *Knowledge) {
			d.Relationships = append(d.Relationships, Relationship{Name: "ghost", Origin: Endpoint{"orders", "customer_id"}, Target: Endpoint{"nope", "x"}, JoinType: ManyToOne})
		}, []loc{{"relationship", "ghost", "target.model"}}, ""},
		{"relationship columns unknown at both ends", func(d *Definitions, k *Knowledge) {
			d.Relationships = append(d.Relationships, Relationship{Name: "ghost", Origin: Endpoint{"orders", "nope"}, Target: Endpoint{"customers", "nada"}, JoinType: OneToOne})
		}, []loc{{"relationship", "ghost", "origin.column"}, {"relationship", "ghost", "target.column"}}, "model orders"},
		{"relationship join type unknown", func(d *Definitions, k *Knowledge) {
			d.Relationships[1].JoinType = "many_to_many"
		}, []loc{{"relationship", "customer_segment", "join_type"}}, ""},
		{"dimension via an unknown relationship", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "net_sales").Dimensions[1].Via = []string{"nope"}
		}, []loc{{"metric", "net_sales", "dimensions[1].via"}}, "does not exist"},
		{"second step of a chain unknown", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "net_sales").Dimensions[2].Via = []string{"order_customer", "nope"}
		}, []loc{{"metric", "net_sales", "dimensions[2].via[1]"}}, ""},
		{"chain that does not start at the metric's model", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "net_sales").Dimensions[2].Via = []string{"customer_segment"}
		}, []loc{{"metric", "net_sales", "dimensions[2].via"}}, "model orders"},
		{"chain whose steps do not connect", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "net_sales").Dimensions[2].Via = []string{"order_customer", "store_orders"}
		}, []loc{{"metric", "net_sales", "dimensions[2].via[1]"}}, "model customers"},
		{"one_to_many reach", func(d *Definitions, k *Knowledge) {
			m := metricNamed(t, d, "net_sales")
			m.Dimensions = append(m.Dimensions, Dimension{Name: "qty", Column: "qty", Via: []string{"orders_to_lines"}})
		}, []loc{{"metric", "net_sales", "dimensions[4].via"}}, "one_to_many"},
		{"many_to_one walked backwards is one_to_many", func(d *Definitions, k *Knowledge) {
			m := metricNamed(t, d, "net_sales")
			m.Dimensions = append(m.Dimensions, Dimension{Name: "line", Column: "line_id", Via: []string{"order_lines_rel"}})
		}, []loc{{"metric", "net_sales", "dimensions[4].via"}}, "duplicate rows"},
		{"one_to_many on the second hop", func(d *Definitions, k *Knowledge) {
			// orders -> customers is many_to_one; walking the same relationship
			// on from customers goes back against it: one_to_many.
			m := metricNamed(t, d, "net_sales")
			m.Dimensions = append(m.Dimensions, Dimension{Name: "again", Column: "channel", Via: []string{"order_customer", "order_customer"}})
		}, []loc{{"metric", "net_sales", "dimensions[4].via[1]"}}, "order_customer"},
		{"one_to_one walked both ways is fine", func(d *Definitions, k *Knowledge) {
			d.Relationships = append(d.Relationships, Relationship{Name: "store_twin", Origin: Endpoint{"stores", "store_id"}, Target: Endpoint{"orders", "store_id"}, JoinType: OneToOne})
			m := metricNamed(t, d, "net_sales")
			m.Dimensions = append(m.Dimensions, Dimension{Name: "twin_city", Column: "city", Via: []string{"store_twin"}})
		}, nil, ""},

		// Allowlists.
		{"empty allowlist", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "net_sales").Dimensions[0].Values = nil
			k.Glossary = k.Glossary[:1] // "web sales" names the value
		}, []loc{{"metric", "net_sales", "dimensions[0].values"}}, "empty allowlist"},
		{"empty but present allowlist", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "net_sales").Dimensions[0].Values = []string{}
			k.Glossary = k.Glossary[:1] // "web sales" names the value
		}, []loc{{"metric", "net_sales", "dimensions[0].values"}}, "empty allowlist"},
		{"64 values are allowed", func(d *Definitions, k *Knowledge) {
			var vs []string
			for i := 0; i < 64; i++ {
				vs = append(vs, fmt.Sprintf("v%d", i))
			}
			metricNamed(t, d, "net_sales").Dimensions[1].Values = vs
		}, nil, ""},
		{"65 values", func(d *Definitions, k *Knowledge) {
			var vs []string
			for i := 0; i < 65; i++ {
				vs = append(vs, fmt.Sprintf("v%d", i))
			}
			metricNamed(t, d, "net_sales").Dimensions[1].Values = vs
		}, []loc{{"metric", "net_sales", "dimensions[1].values"}}, "more than 64"},
		{"bad allowlisted value", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "net_sales").Dimensions[1].Values = []string{"east", pv, "west"}
		}, []loc{{"metric", "net_sales", "dimensions[1].values[1]"}}, "control character"},
		{"allowlisted value with doubled space", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "net_sales").Dimensions[1].Values = []string{"ZZplanted  east"}
		}, []loc{{"metric", "net_sales", "dimensions[1].values[0]"}}, "spacing"},
		{"allowlisted value twice", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "net_sales").Dimensions[1].Values = []string{"east", "west", "east"}
		}, []loc{{"metric", "net_sales", "dimensions[1].values[2]"}}, "twice"},
		{"values on a dimension that is not filterable", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "net_sales").Dimensions[2].Values = []string{"gold"}
		}, []loc{{"metric", "net_sales", "dimensions[2].values"}}, "not filterable"},

		// Labels.
		{"dimension named period", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "net_sales").Dimensions[3].Name = "period"
		}, []loc{{"metric", "net_sales", "dimensions[3].name"}}, "reserved"},
		{"dimension named Period", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "net_sales").Dimensions[3].Name = "PERIOD"
		}, []loc{{"metric", "net_sales", "dimensions[3].name"}}, "reserved"},
		{"metric named period", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "paid_ratio").Name = "Period"
		}, []loc{{"metric", "Period", "name"}}, "reserved"},
		{"dimension named like its metric", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "net_sales").Dimensions[3].Name = "Net_Sales"
		}, []loc{{"metric", "net_sales", "dimensions[3].name"}}, "like its metric"},
		{"two dimensions fold to one name", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "net_sales").Dimensions[3].Name = "REGION"
		}, []loc{{"metric", "net_sales", "dimensions[3].name"}}, "folds"},
		{"dimension named like a table", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "net_sales").Dimensions[3].Name = "orders"
		}, []loc{{"metric", "net_sales", "dimensions[3].name"}}, "bare table name of model orders"},
		{"dimension named like another model's table, case folded", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "net_sales").Dimensions[3].Name = "Stores_Dim"
		}, []loc{{"metric", "net_sales", "dimensions[3].name"}}, "model stores"},
		{"metric named like a three-part table", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "paid_ratio").Name = "segments"
		}, []loc{{"metric", "segments", "name"}}, "model segments"},
		{"a model name that is not a table name is fine", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "net_sales").Dimensions[3].Name = "stores" // the model is stores, its table stores_dim
		}, nil, ""},

		// Required filters.
		{"required filter on an unknown column", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "net_sales").RequiredFilters[1].Column = "nope"
		}, []loc{{"metric", "net_sales", "required_filters[1].column"}}, ""},
		{"required filter with a bad value", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "net_sales").RequiredFilters[0].Value = pv
		}, []loc{{"metric", "net_sales", "required_filters[0].value"}}, "control character"},
		{"required equals without a value", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "net_sales").RequiredFilters[0] = RequiredFilter{Op: NotEquals, Column: "status"}
		}, []loc{{"metric", "net_sales", "required_filters[0].value"}}, "empty"},
		{"is_true with a value", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "net_sales").RequiredFilters[1].Value = "ZZplanted"
		}, []loc{{"metric", "net_sales", "required_filters[1]"}}, "takes no value"},
		{"unknown required-filter operator", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "net_sales").RequiredFilters[1] = RequiredFilter{Op: "like", Column: "status", Value: "ZZplanted%"}
		}, []loc{{"metric", "net_sales", "required_filters[1]"}}, "operator"},

		// Anchors.
		{"anchor a month when the coarsest grain is quarter", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "net_sales").Anchor.Range = Range{Start: DateOf(2026, 1, 1), End: DateOf(2026, 2, 1)}
		}, []loc{{"metric", "net_sales", "anchor.range"}}, "quarter"},
		{"anchor a quarter that does not start a quarter", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "net_sales").Anchor.Range = Range{Start: DateOf(2026, 2, 1), End: DateOf(2026, 5, 1)}
		}, []loc{{"metric", "net_sales", "anchor.range"}}, ""},
		{"anchor two quarters", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "net_sales").Anchor.Range = Range{Start: DateOf(2026, 1, 1), End: DateOf(2026, 7, 1)}
		}, []loc{{"metric", "net_sales", "anchor.range"}}, ""},
		{"anchor value bad", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "net_sales").Anchor.Value = " ZZplanted"
		}, []loc{{"metric", "net_sales", "anchor.value"}}, ""},
		{"anchor on a monthly metric", func(d *Definitions, k *Knowledge) {
			metricNamed(t, d, "paid_ratio").Anchor = &Anchor{Range: Range{Start: DateOf(2024, 2, 1), End: DateOf(2024, 3, 1)}, Value: "0.5"}
		}, nil, ""},

		// Knowledge referents.
		{"glossary means an unknown metric", func(d *Definitions, k *Knowledge) {
			k.Glossary[0].Means.Metric = "nope"
		}, []loc{{"glossary", "revenue", "means.metric"}}, ""},
		{"glossary means an unknown dimension", func(d *Definitions, k *Knowledge) {
			k.Glossary[1].Means.Dimension = "nope"
		}, []loc{{"glossary", "web sales", "means.dimension"}}, "net_sales"},
		{"glossary means a value off the allowlist", func(d *Definitions, k *Knowledge) {
			k.Glossary[1].Means.Value = "ZZplanted"
		}, []loc{{"glossary", "web sales", "means.value"}}, "allowlist of dimension channel"},
		{"glossary value without a dimension", func(d *Definitions, k *Knowledge) {
			k.Glossary[0].Means.Value = "web"
		}, []loc{{"glossary", "revenue", "means.value"}}, "needs a dimension"},
		{"glossary term twice", func(d *Definitions, k *Knowledge) {
			k.Glossary = append(k.Glossary, Glossary{Term: "revenue", Means: Meaning{Metric: "paid_ratio"}})
		}, []loc{{"glossary", "revenue", "term"}}, ""},
		{"caveat about an unknown thing", func(d *Definitions, k *Knowledge) {
			k.Caveats[0].About = []string{"net_sales", "nope"}
		}, []loc{{"caveat", "late_refunds", "about[1]"}}, ""},
		{"caveat about an unknown dimension", func(d *Definitions, k *Knowledge) {
			k.Caveats[0].About = append(k.Caveats[0].About, "net_sales.nope", "nope.region", "paid_ratio.region")
		}, []loc{{"caveat", "late_refunds", "about[3]"}, {"caveat", "late_refunds", "about[4]"}, {"caveat", "late_refunds", "about[5]"}}, ""},
		{"caveat about an allowlisted value", func(d *Definitions, k *Knowledge) {
			k.Caveats[0].About = append(k.Caveats[0].About, "net_sales.region=North East")
		}, nil, ""},
		{"caveat about a value off the allowlist or of a group-by dimension", func(d *Definitions, k *Knowledge) {
			k.Caveats[0].About = append(k.Caveats[0].About, "net_sales.region=ZZplanted", "net_sales.nope=east")
		}, []loc{{"caveat", "late_refunds", "about[3]"}, {"caveat", "late_refunds", "about[4]"}}, "allowlisted"},
		{"caveat about nothing", func(d *Definitions, k *Knowledge) {
			k.Caveats[0].About = nil
		}, []loc{{"caveat", "late_refunds", "about"}}, ""},
		{"caveat name twice", func(d *Definitions, k *Knowledge) {
			k.Caveats = append(k.Caveats, Caveat{Name: "late_refunds", About: []string{"orders"}})
		}, []loc{{"caveat", "late_refunds", "name"}}, ""},
		{"phrase both defined and not defined", func(d *Definitions, k *Knowledge) {
			k.NotDefined[0].Phrase = "Revenue"
		}, []loc{{"not_defined", "Revenue", "phrase"}}, "glossary term revenue"},
		{"not-defined synonym that a glossary synonym defines", func(d *Definitions, k *Knowledge) {
			k.NotDefined[0].Synonyms = []string{"margin", "TURNOVER"}
		}, []loc{{"not_defined", "profit", "synonyms[1]"}}, "revenue"},
		{"example name twice", func(d *Definitions, k *Knowledge) {
			k.Examples = append(k.Examples, k.Examples[0])
		}, []loc{{"example", "sales_by_region", "name"}}, ""},
		{"knowledge of exactly 32 KiB", func(d *Definitions, k *Knowledge) {
			k.Caveats[0].Note = ""
			k.Caveats[0].Note = strings.Repeat("x", MaxKnowledgeBytes-k.TextBytes())
		}, nil, ""},
		{"knowledge over 32 KiB", func(d *Definitions, k *Knowledge) {
			k.Caveats[0].Note = ""
			k.Caveats[0].Note = strings.Repeat("x", MaxKnowledgeBytes-k.TextBytes()+1)
		}, []loc{{"knowledge", "", ""}}, "32768"},
		{"knowledge over 32 KiB in example phrasings", func(d *Definitions, k *Knowledge) {
			for i := 0; i < 400; i++ {
				k.Examples[0].Asked = append(k.Examples[0].Asked, strings.Repeat("how much did we sell ", 4))
			}
		}, []loc{{"knowledge", "", ""}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, k := fixture(t)
			tt.change(&d, &k)
			probs := Check(&d, &k)
			got := locs(probs)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("problems at %v, want %v\n%v", got, tt.want, probs)
			}
			if tt.reason != "" && !strings.Contains(probs[0].Reason, tt.reason) {
				t.Errorf("reason %q does not say %q", probs[0].Reason, tt.reason)
			}
			for _, p := range probs {
				if strings.Contains(p.Error(), "ZZplanted") || strings.Contains(p.Reason, "planted") {
					t.Errorf("problem %q quotes a value", p.Error())
				}
			}
		})
	}
}

func TestMaxKnowledgeBytes(t *testing.T) {
	if MaxKnowledgeBytes != 32*1024 {
		t.Fatalf("MaxKnowledgeBytes = %d, docs/contract.md §2.1 says 32 KiB", MaxKnowledgeBytes)
	}
	k := Knowledge{
		Glossary:   []Glossary{{Term: "ab", Synonyms: []string{"cde"}, Note: "f"}},
		Caveats:    []Caveat{{Name: "gh", Note: "ijk", About: []string{"not counted"}}},
		NotDefined: []NotDefined{{Phrase: "l", Synonyms: []string{"mn"}, Note: "o"}},
		Examples:   []Example{{Name: "pq", Asked: []string{"rs", "t"}, Note: "uvw"}},
	}
	if got, want := k.TextBytes(), len("ab"+"cde"+"f"+"gh"+"ijk"+"l"+"mn"+"o"+"pq"+"rs"+"t"+"uvw"); got != want {
		t.Fatalf("TextBytes = %d, want %d", got, want)
	}
}

func TestProblemError(t *testing.T) {
	p := &Problem{Kind: "metric", Name: "net_sales", Key: "dimensions[1].via[0]", Reason: "the relationship does not exist"}
	if got, want := p.Error(), "metric net_sales: dimensions[1].via[0]: the relationship does not exist"; got != want {
		t.Fatalf("Error() = %q, want %q", got, want)
	}
	p = &Problem{Kind: "knowledge", Reason: "too big"}
	if got, want := p.Error(), "knowledge : too big"; got != want {
		t.Fatalf("Error() = %q, want %q", got, want)
	}
}

// TestCheckReportsEveryProblemInDocumentOrder: Check does not stop at the
// first problem.
func TestCheckReportsEveryProblemInDocumentOrder(t *testing.T) {
	d, k := fixture(t)
	d.Models[3].Columns[1].Type = "varchar"
	d.Relationships[1].JoinType = "many_to_many"
	metricNamed(t, &d, "net_sales").TimeColumn = "nope"
	metricNamed(t, &d, "paid_ratio").Grains = nil
	k.Caveats[0].About = nil
	got := locs(Check(&d, &k))
	want := []loc{
		{"model", "stores", "columns[1].type"},
		{"relationship", "customer_segment", "join_type"},
		{"metric", "net_sales", "time_column"},
		{"metric", "paid_ratio", "grains"},
		{"caveat", "late_refunds", "about"},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestNewBundleRefusesInconsistentDefinitions(t *testing.T) {
	d, k := fixture(t)
	metricNamed(t, &d, "net_sales").Dimensions[0].Values = nil
	metricNamed(t, &d, "paid_ratio").Model = "nope"
	k.Glossary = k.Glossary[:1]
	b, err := NewBundle("v1", d, k)
	if b != nil || err == nil {
		t.Fatal("NewBundle accepted an inconsistent catalogue")
	}
	if !errors.Is(err, ErrInvalidDefinitions) {
		t.Fatalf("error %v does not wrap ErrInvalidDefinitions", err)
	}
	var p *Problem
	if !errors.As(err, &p) || p.Key != "dimensions[0].values" {
		t.Fatalf("errors.As(*Problem) = %v", p)
	}
	for _, want := range []string{"metric net_sales: dimensions[0].values", "metric paid_ratio: model"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not name %q:\n%v", want, err)
		}
	}
}

func TestStep(t *testing.T) {
	r := &Relationship{Name: "r", Origin: Endpoint{"a", "x"}, Target: Endpoint{"b", "y"}}
	tests := []struct {
		jt     JoinType
		from   string
		to     string
		wantJT JoinType
		ok     bool
	}{
		{ManyToOne, "a", "b", ManyToOne, true},
		{ManyToOne, "b", "a", OneToMany, true},
		{OneToMany, "a", "b", OneToMany, true},
		{OneToMany, "b", "a", ManyToOne, true},
		{OneToOne, "a", "b", OneToOne, true},
		{OneToOne, "b", "a", OneToOne, true},
		{ManyToOne, "c", "", "", false},
	}
	for _, tt := range tests {
		r.JoinType = tt.jt
		to, jt, ok := Step(r, tt.from)
		if to != tt.to || jt != tt.wantJT || ok != tt.ok {
			t.Errorf("Step(%s, from %s) = %s, %s, %v; want %s, %s, %v", tt.jt, tt.from, to, jt, ok, tt.to, tt.wantJT, tt.ok)
		}
	}
	self := &Relationship{Name: "parent", Origin: Endpoint{"a", "parent_id"}, Target: Endpoint{"a", "id"}, JoinType: ManyToOne}
	if to, jt, ok := Step(self, "a"); to != "a" || jt != ManyToOne || !ok {
		t.Errorf("a self relationship is not walked origin to target: %s %s %v", to, jt, ok)
	}
}

func TestModelHelpers(t *testing.T) {
	for _, tt := range []struct {
		table string
		parts []string
	}{
		{"t", []string{"t"}},
		{"s.t", []string{"s", "t"}},
		{"p.d.t", []string{"p", "d", "t"}},
		{"s..t", []string{"s", "", "t"}},
	} {
		m := Model{Table: tt.table}
		if !slices.Equal(m.TableParts(), tt.parts) || m.BareTable() != tt.parts[len(tt.parts)-1] {
			t.Errorf("%q: parts %q bare %q", tt.table, m.TableParts(), m.BareTable())
		}
	}
	d, _ := fixture(t)
	m := metricNamed(t, &d, "net_sales")
	if c := m.CoarsestGrain(); c != Quarter {
		t.Errorf("CoarsestGrain = %s", c)
	}
	if !m.HasGrain(Day) || m.HasGrain(Week) {
		t.Error("HasGrain")
	}
	dim, ok := m.Dimension("region")
	if !ok || !dim.Allows("North East") || dim.Allows("north east") || dim.Allows("North  East") {
		t.Error("Allows is not an exact match")
	}
	if _, ok := m.Dimension("Region"); ok {
		t.Error("Dimension lookup folded case")
	}
	if (Term{CountIf: "is_paid"}).InputColumn() != "is_paid" || (Term{Aggregate: Sum, Column: "amount"}).InputColumn() != "amount" {
		t.Error("InputColumn")
	}
	if len((Measure{}).Terms()) != 0 || len(m.Measure.Terms()) != 1 || len(metricNamed(t, &d, "paid_ratio").Measure.Terms()) != 2 {
		t.Error("Terms")
	}
}

func TestAudienceAndPrincipal(t *testing.T) {
	open := Audience{}
	fin := Audience{Restricted: []string{"finance", "exec"}}
	b, _ := open.MarshalJSON()
	if string(b) != `"open"` {
		t.Errorf("open audience = %s", b)
	}
	b, _ = fin.MarshalJSON()
	if string(b) != `{"restricted":["finance","exec"]}` {
		t.Errorf("restricted audience = %s", b)
	}
	for _, a := range []Audience{open, fin} {
		b, _ := json.Marshal(a)
		var back Audience
		if err := json.Unmarshal(b, &back); err != nil || !slices.Equal(back.Restricted, a.Restricted) {
			t.Errorf("audience %s did not round-trip: %v, %v", b, back, err)
		}
	}
	var none Audience
	if err := json.Unmarshal([]byte(`{"restricted":[]}`), &none); err != nil || !none.Open() {
		t.Errorf("an empty restricted list is not open: %v, %v", none, err)
	}
	anon := Principal{Subject: "u1"}
	member := Principal{Subject: "u2", Audiences: []string{"sales", "exec"}}
	if !anon.CanSee(open) || anon.CanSee(fin) || !member.CanSee(fin) || !LocalOperator.CanSee(fin) {
		t.Error("CanSee")
	}
	chain := Principal{Subject: "alice", Actors: []string{"agent", "gateway"}}.Chain()
	if !slices.Equal(chain, []string{"alice", "agent", "gateway"}) {
		t.Errorf("Chain = %v", chain)
	}
}

func TestCapabilities(t *testing.T) {
	want := map[Capability]Scope{
		"describe_catalog": "sutura:catalog.read",
		"ask_metric":       "sutura:metrics.ask",
		"run_sql":          "sutura:sql.run",
	}
	caps := Capabilities()
	if len(caps) != len(want) {
		t.Fatalf("Capabilities = %v", caps)
	}
	for _, c := range caps {
		if c.Scope() != want[c] {
			t.Errorf("%s.Scope() = %s, want %s", c, c.Scope(), want[c])
		}
	}
	if Capability("nope").Scope() != "" {
		t.Error("an unknown capability has a scope")
	}
}
