package conformance

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"sutura.dev/app"
	"sutura.dev/domain"
	"sutura.dev/semantic"
)

// legQuestions are federated questions over the demo with products in
// another data system: sums and counts (whose partials add up), grouped by
// a remote dimension, a local one, and filtered on a remote one with each
// operator.
var legQuestions = []string{
	`{"metrics":["net_sales"],"grain":"month","range":{"start":"2025-01-01","end":"2025-07-01"},"dimensions":["product_category"]}`,
	`{"metrics":["order_count"],"grain":"quarter","range":{"start":"2025-01-01","end":"2026-01-01"},"dimensions":["channel","product_category"],"filters":[{"op":"in","dimension":"product_category","values":["Garden","Kitchen"]}]}`,
	`{"metrics":["units_sold"],"grain":"year","range":{"start":"2024-01-01","end":"2026-07-01"},"dimensions":["product"],"filters":[{"op":"not_in","dimension":"product_category","values":["Lighting"]}]}`,
	`{"metrics":["returned_orders"],"grain":"month","range":{"start":"2025-01-01","end":"2025-04-01"},"filters":[{"op":"eq","dimension":"product_category","value":"Textiles"}]}`,
}

// RunLegs checks, from a data system's own module, that sys executes the
// legs of federated plans (docs/contract.md §11): for each question of a fixed
// set over the demo with products in another source, it runs the base leg
// (partials grouped by the product key) and the lookup leg (the products'
// keys and columns) on sys — which holds every demo table of source —
// joins and adds them up with the naive arithmetic of a sum, and requires
// the result to be sys's own single-statement answer to the question,
// group for group. It also requires a leg past its row cap to be refused
// as result_too_large.
func RunLegs(t *testing.T, sys app.DataSystem, source string) {
	t.Helper()
	one, err := DemoBundle(source)
	if err != nil {
		t.Fatalf("conformance: %v", err)
	}
	split, err := SplitDemoBundle(map[string]string{"orders": source, "customers": source, "regions": source, "products": source + "_remote"})
	if err != nil {
		t.Fatalf("conformance: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, raw := range legQuestions {
		q, err := domain.ParseQuestion([]byte(raw))
		if err != nil {
			t.Fatalf("conformance: %v", err)
		}
		whole, why := semantic.Compile(one, domain.LocalOperator, q, Today)
		if why != nil {
			t.Fatalf("conformance: %s: refused %s", raw, why.Code())
		}
		fed, why := semantic.Compile(split, domain.LocalOperator, q, Today)
		if why != nil || !fed.Federated() || len(fed.Legs) != 2 {
			t.Fatalf("conformance: %s: not planned in two legs (%v)", raw, why)
		}
		want, err := sys.Execute(ctx, whole)
		if err != nil {
			t.Fatalf("%s: the single statement: %v", raw, err)
		}
		legs := make([]*domain.RowSet, 2)
		for i := range fed.Legs {
			lp := fed.LegPlan(i, domain.MaxLegRowCap)
			lp.Legs[0].Source = source // the products live in sys too
			if legs[i], err = sys.Execute(ctx, lp); err != nil {
				t.Fatalf("%s: leg %d: %v", raw, i, err)
			}
		}
		got, err := naiveSum(fed, legs)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if g, w := rowStrings(got), rowStrings(want.Rows); !slices.Equal(g, w) {
			t.Fatalf("%s: the legs add up to\n%s\nthe single statement answers\n%s", raw, strings.Join(g, "\n"), strings.Join(w, "\n"))
		}
	}
	fed, _ := semantic.Compile(split, domain.LocalOperator, mustQuestion(legQuestions[0]), Today)
	_, err = sys.Execute(ctx, fed.LegPlan(0, 5))
	var re *domain.RefusalError
	if !errors.As(err, &re) || re.Reason.Code() != domain.ResultTooLarge {
		t.Fatalf("a base leg of more than its 5 rows: want result_too_large, got %v", err)
	}
}

func mustQuestion(raw string) domain.Question {
	q, err := domain.ParseQuestion([]byte(raw))
	if err != nil {
		panic(err)
	}
	return q
}

// naiveSum joins the base leg's rows of a two-leg plan of one sum or count
// metric to its lookup leg's by key, applies the combine's filters with
// SQL's null semantics and adds the partials up per group: the arithmetic
// of the combine for such a metric, written out as plainly as it goes.
func naiveSum(p *domain.Plan, legs []*domain.RowSet) ([][]domain.Cell, error) {
	c := p.Combine
	lookup := map[string][]domain.Cell{}
	for _, row := range legs[1].Rows {
		k := row[0].Render()
		if _, dup := lookup[k]; dup {
			return nil, errors.New("the lookup leg holds a key twice")
		}
		lookup[k] = row
	}
	cell := func(base []domain.Cell, lc domain.LegColumn) domain.Cell {
		if lc.Leg == 0 {
			return base[lc.Column]
		}
		from := base[c.Links[0].From.Column]
		row, ok := lookup[from.Render()]
		if from.IsNull() || !ok {
			return domain.Null()
		}
		return row[lc.Column]
	}
	type group struct {
		key []domain.Cell
		sum int64
		any bool
	}
	var groups []*group
	index := map[string]*group{}
	period := len(p.Legs[0].Dimensions)
	partial := c.Metrics[0].Partials[0][0]
rows:
	for _, base := range legs[0].Rows {
		for _, f := range c.Filters {
			v := cell(base, f.Column)
			keep := !v.IsNull() && slices.Contains(f.Values, v.Render()) // a null is never listed
			if f.Op == domain.OpNotIn {
				keep = !keep
			}
			if !keep {
				continue rows
			}
		}
		var key []domain.Cell
		for _, lc := range c.Dimensions {
			key = append(key, cell(base, lc))
		}
		key = append(key, base[period])
		k := strings.Join(rowStrings([][]domain.Cell{key}), "")
		g := index[k]
		if g == nil {
			g = &group{key: key}
			index[k] = g
			groups = append(groups, g)
		}
		if v := base[partial]; !v.IsNull() {
			n, err := strconv.ParseInt(v.Render(), 10, 64)
			if err != nil {
				return nil, errors.New("a partial of a sum or count is not an integer")
			}
			g.sum += n
			g.any = true
		}
	}
	var out [][]domain.Cell
	for _, g := range groups {
		m := domain.Null()
		if g.any {
			m = domain.Int(g.sum)
		}
		out = append(out, append(g.key, m))
	}
	return out, nil
}

// rowStrings renders rows, one line each, sorted: the groups of an answer
// whatever their order.
func rowStrings(rows [][]domain.Cell) []string {
	var out []string
	for _, r := range rows {
		var cells []string
		for _, c := range r {
			cells = append(cells, c.Render())
		}
		out = append(out, strings.Join(cells, "\t"))
	}
	slices.Sort(out)
	return out
}
