package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"sutura.dev/app"
	"sutura.dev/domain"
)

// RandomQuestion draws a valid question of b's catalogue, as its wire
// JSON: metrics that share a model and time column, a grain they all
// declare, a range of up to two years starting between 2024 and mid-2026,
// up to four dimensions they all declare, up to two filters on allowlisted
// values (eq, in or not_in), and sometimes top. The same rng state draws
// the same question.
func RandomQuestion(rng *rand.Rand, b *domain.Bundle) json.RawMessage {
	metrics := b.Definitions().Metrics
	first := metrics[rng.IntN(len(metrics))]
	chosen := []domain.Metric{first}
	for _, m := range metrics {
		if m.Name != first.Name && m.Model == first.Model && m.TimeColumn == first.TimeColumn && len(chosen) < 3 && rng.IntN(4) == 0 {
			chosen = append(chosen, m)
		}
	}
	var grains []domain.Grain
	for _, g := range domain.Grains {
		ok := true
		for _, m := range chosen {
			ok = ok && m.HasGrain(g)
		}
		if ok {
			grains = append(grains, g)
		}
	}
	if len(grains) == 0 {
		chosen, grains = chosen[:1], first.Grains
	}
	grain := grains[rng.IntN(len(grains))]
	var names []string
	for _, m := range chosen {
		names = append(names, m.Name)
	}
	// Dimensions every chosen metric declares, the same way.
	var shared []domain.Dimension
	for _, d := range first.Dimensions {
		ok := true
		for _, m := range chosen[1:] {
			o, has := m.Dimension(d.Name)
			ok = ok && has && o.Column == d.Column && slices.Equal(o.Via, d.Via)
		}
		if ok {
			shared = append(shared, d)
		}
	}
	rng.Shuffle(len(shared), func(i, j int) { shared[i], shared[j] = shared[j], shared[i] })
	dims := []string{}
	for _, d := range shared[:rng.IntN(min(4, len(shared))+1)] {
		dims = append(dims, d.Name)
	}
	filters := []any{}
	for _, d := range shared {
		if !d.Filterable || rng.IntN(3) != 0 || len(filters) == 2 {
			continue
		}
		vals := slices.Clone(d.Values)
		rng.Shuffle(len(vals), func(i, j int) { vals[i], vals[j] = vals[j], vals[i] })
		switch rng.IntN(3) {
		case 0:
			filters = append(filters, map[string]any{"op": "eq", "dimension": d.Name, "value": vals[0]})
		case 1:
			filters = append(filters, map[string]any{"op": "in", "dimension": d.Name, "values": vals[:1+rng.IntN(len(vals))]})
		default:
			filters = append(filters, map[string]any{"op": "not_in", "dimension": d.Name, "values": vals[:1+rng.IntN(len(vals))]})
		}
	}
	start := domain.DateOf(2024, 1, 1).AddDays(rng.IntN(900))
	end := start.AddDays(1 + rng.IntN(730))
	q := map[string]any{"metrics": names, "grain": grain.String(),
		"range": map[string]any{"start": start.String(), "end": end.String()}, "dimensions": dims, "filters": filters}
	if len(names) == 1 && rng.IntN(5) == 0 {
		q["top"] = map[string]any{"n": 1 + rng.IntN(10), "by": []string{"metric", "period"}[rng.IntN(2)], "direction": []string{"desc", "asc"}[rng.IntN(2)]}
	}
	raw, err := json.Marshal(q)
	if err != nil {
		panic(err) // maps of strings, numbers and slices always encode
	}
	return raw
}

// Tally counts what a Differential saw: outcomes by kind ("answer", a
// refusal code, "zero_denominator"), and the real cells of the answers,
// with how many of them were not byte-identical (equal to 1e-9 relative
// only, as sums of reals added in another order may be).
type Tally struct {
	Outcomes     map[string]int
	Reals        int
	InexactReals int
	// Federated counts the answers of the surface under test that read
	// more than one data system (executed_as).
	Federated int
}

// Differential asks n random valid questions (RandomQuestion, from the
// given seed) as the local operator of sut and of ref, two surfaces over
// the same catalogue and the same data, and fails t at the first question
// whose outcomes differ: an answer against a refusal, another refusal
// code, other columns or rows in another order, a cell of another text
// (reals may differ by 1e-9 relative; Tally counts them), or a failure
// other than a zero denominator on both.
func Differential(t *testing.T, sut, ref *app.Surface, n int, seed uint64) Tally {
	t.Helper()
	return DifferentialSkipping(t, sut, ref, n, seed, nil)
}

// DifferentialSkipping is Differential, except that a question for which
// notRun reports true is drawn but not asked, and counted as "not run" in
// the tally: for a data system that cannot run some questions (an old
// server version). The questions asked are the same as Differential's.
func DifferentialSkipping(t *testing.T, sut, ref *app.Surface, n int, seed uint64, notRun func(domain.Question) bool) Tally {
	t.Helper()
	return differential(t, sut, ref, n, seed, notRun, false)
}

// FederatedDifferential is Differential for sut, a surface whose catalogue
// is ref's with its models split across several data systems (a
// federated deployment, docs/contract.md §11), against ref on one: every
// outcome must be identical — answers cell for cell and in order,
// refusals by code, failures — except that sut refuses a question with a
// count_distinct metric as measure_does_not_federate when one of its
// dimensions crosses, as it must, whatever ref answers. Those are counted
// under that code, and t fails when sut gives the refusal to a question
// without a count_distinct metric.
func FederatedDifferential(t *testing.T, sut, ref *app.Surface, n int, seed uint64) Tally {
	t.Helper()
	return differential(t, sut, ref, n, seed, nil, true)
}

func differential(t *testing.T, sut, ref *app.Surface, n int, seed uint64, notRun func(domain.Question) bool, federated bool) Tally {
	t.Helper()
	b := ref.Bundle()
	rng := rand.New(rand.NewPCG(seed, 11))
	tally := Tally{Outcomes: map[string]int{}}
	caller := app.Caller{Principal: domain.LocalOperator}
	for i := range n {
		raw := RandomQuestion(rng, b)
		q, err := domain.ParseQuestion(raw)
		if err != nil {
			t.Fatalf("question %d %s does not parse: %v", i, raw, err)
		}
		if notRun != nil && notRun(q) {
			tally.Outcomes["not run"]++
			continue
		}
		a, aerr := sut.Answer(context.Background(), caller, q)
		if federated && aerr == nil && a.Refusal != nil && a.Refusal.Code() == domain.MeasureDoesNotFederate {
			if !countsDistinct(b, q) {
				t.Fatalf("question %d %s: refused %s without a count_distinct metric", i, raw, a.Refusal.Code())
			}
			tally.Outcomes[string(domain.MeasureDoesNotFederate)]++
			continue
		}
		e, eerr := ref.Answer(context.Background(), caller, q)
		switch {
		case aerr != nil || eerr != nil:
			if !errors.Is(aerr, domain.ErrZeroDenominator) || !errors.Is(eerr, domain.ErrZeroDenominator) {
				t.Fatalf("question %d %s: error %v, reference error %v", i, raw, aerr, eerr)
			}
			tally.Outcomes["zero_denominator"]++
			continue
		case a.Kind() != e.Kind():
			t.Fatalf("question %d %s: %s, reference %s", i, raw, describe(a), describe(e))
		case a.Refusal != nil:
			if a.Refusal.Code() != e.Refusal.Code() {
				t.Fatalf("question %d %s: refused %s, reference %s", i, raw, a.Refusal.Code(), e.Refusal.Code())
			}
			tally.Outcomes[string(a.Refusal.Code())]++
			continue
		}
		tally.Outcomes["answer"]++
		if len(a.Answer.Provenance.ExecutedAs) > 1 {
			tally.Federated++
		}
		if diff := compareAnswers(a.Answer, e.Answer, &tally); diff != "" {
			t.Fatalf("question %d %s: %s", i, raw, diff)
		}
	}
	return tally
}

// countsDistinct reports whether a metric of q counts distinct values.
func countsDistinct(b *domain.Bundle, q domain.Question) bool {
	for _, name := range q.Metrics {
		m, ok := b.Metric(name)
		if !ok || m.Measure == nil {
			continue
		}
		for _, t := range m.Measure.Terms() {
			if t.Aggregate == domain.CountDistinct {
				return true
			}
		}
	}
	return false
}

func describe(o domain.Outcome) string {
	if o.Refusal != nil {
		return "refused " + string(o.Refusal.Code())
	}
	return fmt.Sprintf("answered %d rows", len(o.Answer.Rows))
}

func compareAnswers(a, e *domain.Answer, tally *Tally) string {
	if fmt.Sprint(a.Columns) != fmt.Sprint(e.Columns) {
		return fmt.Sprintf("columns %v, reference %v", a.Columns, e.Columns)
	}
	if len(a.Rows) != len(e.Rows) {
		return fmt.Sprintf("%d rows, reference %d", len(a.Rows), len(e.Rows))
	}
	for i := range a.Rows {
		for j := range a.Rows[i] {
			x, y := a.Rows[i][j], e.Rows[i][j]
			if x.Kind() == domain.KindFloat {
				tally.Reals++
			}
			if x.Render() == y.Render() {
				continue
			}
			w := y.Render()
			if y.IsNull() || x.Kind() != domain.KindFloat || !cellEqual(x, &w) {
				return fmt.Sprintf("row %d column %s: %s, reference %s", i, a.Columns[j].Name, x.Render(), y.Render())
			}
			tally.InexactReals++
		}
	}
	return ""
}
