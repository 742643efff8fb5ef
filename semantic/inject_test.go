package semantic_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"sutura.dev/domain"
	"sutura.dev/semantic"
)

// hostileValues are allowlists and required-filter values an attacker would
// love to see in SQL. Each is a valid dimension value (docs/contract.md §3.3).
var hostileValues = values{
	areas:      []string{"'); DROP TABLE x; --", "O'Brien", `"quoted" name`, "semi;colon", `back\slash`},
	channels:   []string{"a' OR '1'='1", "`tick` name", "Zürich – Süd"},
	categories: []string{"%_wild%", `x"; DELETE FROM orders; --`, "$$dollar$$", "/* comment */", "1; SELECT 1"},
	segments:   []string{"it's", "he said \"no\"", "naïve ☃"},
	cancelled:  "can'celled\"; --",
	completed:  "comp' OR 1=1 --",
	online:     "on'line",
}

// TestNoInjection asks many random valid questions of a catalogue whose
// values are hostile and checks, for every dialect, that no value of the
// question or of the catalogue appears in the SQL and that every one is a
// bound parameter.
func TestNoInjection(t *testing.T) {
	split, err := domain.NewBundle("split-1", splitDefinitions(hostileValues), domain.Knowledge{})
	require.NoError(t, err)
	for _, b := range []*domain.Bundle{bundle(t, hostileValues), split} {
		rng := rand.New(rand.NewPCG(1, 2))
		answered, federated := 0, 0
		for i := 0; i < 3000; i++ {
			q := randomQuestion(rng, b)
			plan, why := semantic.Compile(b, domain.LocalOperator, q, today)
			if why != nil {
				continue
			}
			answered++
			statements := []*domain.Plan{plan}
			if plan.Federated() {
				federated++
				statements = nil
				for i := range plan.Legs {
					statements = append(statements, plan.LegPlan(i, 1000))
				}
			}
			for _, p := range statements {
				noValueInSQL(t, p)
			}
		}
		require.Greater(t, answered, 1000, "too few random questions were answerable")
		if b == split {
			require.Greater(t, federated, 500, "too few random questions were federated")
		}
	}
}

// noValueInSQL renders p in every dialect and checks that no value it
// carries is in the SQL and that every one is bound.
func noValueInSQL(t *testing.T, plan *domain.Plan) {
	t.Helper()
	want := expectedValues(plan)
	for _, rd := range renderings() {
		d := rd.name
		st, err := rd.render(plan)
		require.NoError(t, err)
		var bound []string
		for _, p := range st.Params {
			bound = append(bound, p.Value)
			if !strings.Contains(st.SQL, p.Name) {
				t.Fatalf("%s: placeholder %s is not in the SQL", d, p.Name)
			}
		}
		for _, v := range want {
			if strings.Contains(st.SQL, v) {
				t.Fatalf("%s: a value reached the SQL: %q\n%s", d, v, st.SQL)
			}
			if !slices.Contains(bound, v) {
				t.Fatalf("%s: value %q is not bound", d, v)
			}
		}
		for _, v := range bound {
			if strings.Contains(st.SQL, v) {
				t.Fatalf("%s: bound value %q is also in the SQL", d, v)
			}
		}
		if n := strings.Count(st.SQL, rd.mark); n != len(st.Params) {
			t.Fatalf("%s: %d placeholders for %d parameters", d, n, len(st.Params))
		}
	}
}

func placeholderMark(d semantic.Dialect) string {
	switch d {
	case semantic.Oracle:
		return ":"
	case semantic.BigQuery:
		return "@p"
	case semantic.ClickHouse:
		return "{p"
	}
	return "$"
}

// expectedValues are every value the (single-leg) plan carries: range
// dates as text (but for a lookup leg), caller filter values and the
// metrics' required-filter values.
func expectedValues(p *domain.Plan) []string {
	var out []string
	if p.Legs[0].Kind != domain.LegLookup {
		out = append(out, p.Range.Start.String(), p.Range.End.String())
	}
	for _, f := range p.Legs[0].Filters {
		out = append(out, f.Values...)
	}
	for _, m := range p.Legs[0].Metrics {
		for _, f := range m.RequiredFilters {
			if f.Value != "" {
				out = append(out, f.Value)
			}
		}
	}
	return out
}

// randomQuestion builds a question that is valid for the catalogue most of
// the time: metrics sharing a model and time column, a grain they share,
// dimensions and filters they all declare, allowlisted values, and top.
func randomQuestion(rng *rand.Rand, b *domain.Bundle) domain.Question {
	defs := b.Definitions()
	first := defs.Metrics[rng.IntN(len(defs.Metrics))]
	var peers []domain.Metric
	for _, m := range defs.Metrics {
		if m.Model == first.Model && m.TimeColumn == first.TimeColumn && m.Name != first.Name {
			peers = append(peers, m)
		}
	}
	ms := []domain.Metric{first}
	rng.Shuffle(len(peers), func(i, j int) { peers[i], peers[j] = peers[j], peers[i] })
	ms = append(ms, peers[:rng.IntN(min(len(peers), 3)+1)]...)

	var q domain.Question
	for _, m := range ms {
		q.Metrics = append(q.Metrics, m.Name)
	}
	grains := slices.Clone(first.Grains)
	rng.Shuffle(len(grains), func(i, j int) { grains[i], grains[j] = grains[j], grains[i] })
	q.Grain = grains[0]
	start := domain.DateOf(2020+rng.IntN(6), 1, 1).AddDays(rng.IntN(365))
	if rng.IntN(4) == 0 {
		q.Range = domain.TimeSpan{Relative: &domain.Relative{Count: 1 + rng.IntN(12), Unit: domain.Grains[rng.IntN(5)], IncludeCurrent: rng.IntN(2) == 0}}
	} else {
		q.Range = domain.TimeSpan{Fixed: &domain.Range{Start: start, End: start.AddDays(1 + rng.IntN(900))}}
	}
	var shared []domain.Dimension
	for _, d := range first.Dimensions {
		ok := true
		for _, m := range ms[1:] {
			md, has := m.Dimension(d.Name)
			ok = ok && has && md.Column == d.Column && slices.Equal(md.Via, d.Via)
		}
		if ok {
			shared = append(shared, d)
		}
	}
	rng.Shuffle(len(shared), func(i, j int) { shared[i], shared[j] = shared[j], shared[i] })
	for _, d := range shared[:rng.IntN(min(len(shared), domain.MaxDimensions)+1)] {
		q.Dimensions = append(q.Dimensions, d.Name)
	}
	rng.Shuffle(len(shared), func(i, j int) { shared[i], shared[j] = shared[j], shared[i] })
	for _, d := range shared {
		if !d.Filterable || rng.IntN(2) == 0 {
			continue
		}
		vals := slices.Clone(d.Values)
		rng.Shuffle(len(vals), func(i, j int) { vals[i], vals[j] = vals[j], vals[i] })
		switch rng.IntN(3) {
		case 0:
			q.Filters = append(q.Filters, eq(d.Name, vals[0]))
		case 1:
			q.Filters = append(q.Filters, in(d.Name, vals[:1+rng.IntN(len(vals))]...))
		default:
			q.Filters = append(q.Filters, notIn(d.Name, vals[:1+rng.IntN(len(vals))]...))
		}
	}
	if len(ms) == 1 && rng.IntN(3) == 0 {
		by := domain.ByMetric
		if rng.IntN(2) == 0 {
			by = domain.ByPeriod
		}
		dir := "desc"
		if rng.IntN(2) == 0 {
			dir = "asc"
		}
		q.Top = &domain.Top{N: 1 + rng.IntN(50), By: by, Direction: dir}
	}
	return q
}
