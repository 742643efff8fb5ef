package mdcatalog

import (
	"strings"
	"testing"
	"testing/fstest"
)

// The load-time consistency errors of docs/contract.md §2.1, each found by
// domain.Check (or by the duplicate check here) and mapped back to the file,
// key and line it is about.
func TestLoadConsistencyErrors(t *testing.T) {
	glossary := func(term string) string {
		return "---\nkind: glossary\nterm: " + term + "\nmeans: {metric: net_sales}\n---\n"
	}
	cases := []errorCase{
		{name: "duplicate model", is: ErrInconsistent, file: "models/orders_copy.md", key: "name", marker: "name: orders", reason: "models/orders.md:3",
			fsys: func(t *testing.T, base fstest.MapFS) fstest.MapFS {
				return edit(base, map[string]string{"models/orders_copy.md": string(base[orders].Data)})
			}},
		{name: "duplicate metric", is: ErrInconsistent, file: "metrics/zz.md", key: "name", marker: "name: return_rate", reason: "another metric",
			fsys: func(t *testing.T, base fstest.MapFS) fstest.MapFS {
				return edit(base, map[string]string{"metrics/zz.md": string(base[returnRate].Data)})
			}},
		{name: "duplicate glossary term", is: ErrInconsistent, file: "knowledge/b.md", key: "term", marker: "term:", reason: "another glossary entry has the same term (knowledge/a.md:3)",
			fsys: add(map[string]string{"knowledge/a.md": glossary(planted), "knowledge/b.md": glossary(planted)})},
		{name: "metric names unknown model", is: ErrInconsistent, file: returnRate, key: "model", marker: "model: nosuch", reason: "model that does not exist",
			fsys: swap(returnRate, "model: orders", "model: nosuch")},
		{name: "dimension via unknown relationship", is: ErrInconsistent, file: netSales, key: "dimensions[0].via", marker: "via: nosuch", reason: "relationship that does not exist",
			fsys: swap(netSales, "via: orders_region", "via: nosuch")},
		{name: "dimension via chain", is: ErrInconsistent, file: netSales, key: "dimensions[0].via[1]", marker: "via: [orders_region", reason: "relationship that does not exist",
			fsys: swap(netSales, "via: orders_region", "via: [orders_region, nosuch]")},
		{name: "dimension unknown column", is: ErrInconsistent, file: netSales, key: "dimensions[0].column", marker: "column: nosuch", reason: "names column nosuch, which model",
			fsys: swap(netSales, "    column: area\n", "    column: nosuch\n")},
		{name: "term unknown column", is: ErrInconsistent, file: netSales, key: "measure.simple.column", marker: "simple:", reason: "names column nosuch, which model",
			fsys: swap(netSales, "column: amount}", "column: nosuch}")},
		{name: "count_if unknown column", is: ErrInconsistent, file: returnRate, key: "measure.ratio.numerator.count_if", marker: "numerator:", reason: "names column nosuch, which model",
			fsys: swap(returnRate, "{count_if: is_returned}", "{count_if: nosuch}")},
		{name: "count_if over a non-boolean", is: ErrInconsistent, file: returnRate, key: "measure.ratio.numerator.count_if", marker: "numerator:", reason: "boolean",
			fsys: swap(returnRate, "{count_if: is_returned}", "{count_if: amount}")},
		{name: "unknown time column", is: ErrInconsistent, file: netSales, key: "time_column", marker: "time_column", reason: "time column",
			fsys: swap(netSales, "time_column: order_date", "time_column: nosuch")},
		{name: "required filter unknown column", is: ErrInconsistent, file: netSales, key: "required_filters[0].not_equals.column", marker: "not_equals", reason: "names column nosuch, which model",
			fsys: swap(netSales, "{column: channel, value: test}", "{column: nosuch, value: test}")},
		{name: "required filter value", is: ErrInconsistent, file: netSales, key: "required_filters[0].not_equals.value", marker: "not_equals", reason: "control character",
			fsys: swap(netSales, "{column: channel, value: test}", "{column: channel, value: \""+planted+"\\n\"}")},
		{name: "relationship origin model", is: ErrInconsistent, file: rel, key: "origin.model", marker: "origin:", reason: "model that does not exist",
			fsys: swap(rel, "origin: {model: orders", "origin: {model: nosuch")},
		{name: "relationship target column", is: ErrInconsistent, file: rel, key: "target.column", marker: "target:", reason: "names column nosuch, which model",
			fsys: swap(rel, "target: {model: regions, column: region_id}", "target: {model: regions, column: nosuch}")},
		{name: "one_to_many reach", is: ErrInconsistent, file: netSales, key: "dimensions[0].via", marker: "via: orders_region", reason: "one_to_many",
			fsys: swap(rel, "join_type: many_to_one", "join_type: one_to_many")},
		{name: "allowlist value with control character", is: ErrInconsistent, file: netSales, key: "dimensions[0].values[1]", marker: "values:", reason: "control character",
			fsys: swap(netSales, "values: [east, west]", "values: [east, \""+planted+"\\there\"]")},
		{name: "allowlist value with doubled space", is: ErrInconsistent, file: netSales, key: "dimensions[0].values[0]", marker: "values:", reason: "spacing",
			fsys: swap(netSales, "values: [east, west]", "values: [\""+planted+"  x\", west]")},
		{name: "reserved label period", is: ErrInconsistent, file: netSales, key: "dimensions[1].name", marker: "name: Period", reason: "reserved",
			fsys: swap(netSales, "  - name: channel\n", "  - name: Period\n")},
		{name: "metric named period", is: ErrInconsistent, file: returnRate, key: "name", marker: "name: period", reason: "reserved",
			fsys: func(t *testing.T, base fstest.MapFS) fstest.MapFS {
				f := replace(t, base, returnRate, "name: return_rate", "name: period")
				return replace(t, f, caveat, "about: [return_rate, ", "about: [")
			}},
		{name: "dimension named like its metric", is: ErrInconsistent, file: netSales, key: "dimensions[1].name", marker: "name: NET_Sales", reason: "named like its metric",
			fsys: swap(netSales, "  - name: channel\n", "  - name: NET_Sales\n")},
		{name: "dimension named like a table", is: ErrInconsistent, file: netSales, key: "dimensions[1].name", marker: "name: Regions", reason: "bare table name of model regions",
			fsys: swap(netSales, "  - name: channel\n", "  - name: Regions\n")},
		{name: "metric named like a table", is: ErrInconsistent, file: returnRate, key: "name", marker: "name: orders", reason: "bare table name of model orders",
			fsys: func(t *testing.T, base fstest.MapFS) fstest.MapFS {
				f := replace(t, base, returnRate, "name: return_rate", "name: orders")
				return replace(t, f, caveat, "about: [return_rate, ", "about: [")
			}},
		{name: "anchor range not one period", is: ErrInconsistent, file: netSales, key: "anchor.range", marker: "range:", reason: "not exactly one quarter",
			fsys: swap(netSales, "end: 2026-04-01", "end: 2026-02-01")},
		{name: "anchor value", is: ErrInconsistent, file: netSales, key: "anchor.value", marker: "value: \"", reason: "anchor value",
			fsys: swap(netSales, "value: 1234.50", "value: \" "+planted+"\"")},
		{name: "caveat referent", is: ErrInconsistent, file: caveat, key: "about[1]", marker: "about:", reason: "referent",
			fsys: swap(caveat, "net_sales.area", "net_sales.nosuch")},
		{name: "glossary metric", is: ErrInconsistent, file: revenue, key: "means.metric", marker: "means:", reason: "does not exist",
			fsys: swap(revenue, "{metric: net_sales}", "{metric: nosuch}")},
		{name: "glossary dimension", is: ErrInconsistent, file: eastSales, key: "means.dimension", marker: "means:", reason: "no such dimension",
			fsys: swap(eastSales, "dimension: area", "dimension: channel_x")},
		{name: "glossary value off the allowlist", is: ErrInconsistent, file: eastSales, key: "means.value", marker: "means:", reason: "not on the allowlist",
			fsys: swap(eastSales, "value: east}", "value: "+planted+"}")},
		{name: "example metric", is: ErrInconsistent, file: example, key: "question", marker: "question:", reason: "the question is refused (metric_unknown)",
			fsys: swap(example, "metrics: [net_sales]", "metrics: [nosuch]")},
		{name: "example dimension", is: ErrInconsistent, file: example, key: "question", marker: "question:", reason: "the question is refused (dimension_not_permitted)",
			fsys: swap(example, "dimensions: [area]", "dimensions: [nosuch]")},
		{name: "phrase defined and undefined", is: ErrInconsistent, file: profit, key: "phrase", marker: "phrase:", reason: "glossary entry (knowledge/revenue.md:3)",
			fsys: swap(profit, "phrase: profit", "phrase: Revenue")},
		{name: "synonym defined and undefined", is: ErrInconsistent, file: profit, key: "synonyms[0]", marker: "synonyms:", reason: "glossary entry (knowledge/revenue.md:3)",
			fsys: swap(profit, "synonyms: [margin]", "synonyms: [TURNOVER]")},
		{name: "planted phrase defined and undefined", is: ErrInconsistent, file: "knowledge/n.md", key: "phrase", marker: "phrase:", reason: "glossary entry (knowledge/g.md:3)",
			fsys: add(map[string]string{
				"knowledge/g.md": glossary(planted),
				"knowledge/n.md": "---\nkind: not_defined\nphrase: " + strings.ToLower(planted) + "\n---\n",
			})},
		{name: "knowledge over 32 KiB", is: ErrInconsistent, file: "knowledge/zz_big.md", reason: "more than the limit of 32768",
			fsys: add(map[string]string{
				"knowledge/zz_big.md": "---\nkind: not_defined\nphrase: big\n---\n" + strings.Repeat(planted+" words\n", 33<<10/20),
			})},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}
