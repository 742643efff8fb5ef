package engine

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
)

// The engine is a data system of app's port (app is not imported here:
// the engine may import only the domain).
var _ interface {
	Execute(context.Context, *domain.Plan) (*domain.RowSet, error)
} = (*Engine)(nil)

// col declares a model column.
func col(name string, typ domain.ColumnType) domain.ModelColumn {
	return domain.ModelColumn{Name: name, Type: typ}
}

// tbl is a plan table over the file named like the model.
func tbl(model, alias string, cols ...domain.ModelColumn) domain.Table {
	return domain.Table{Model: model, Path: []string{model}, Alias: alias, Columns: cols}
}

func sum(c string) domain.Measure   { return simple(domain.Sum, c) }
func count(c string) domain.Measure { return simple(domain.Count, c) }

func simple(a domain.Aggregate, c string) domain.Measure {
	return domain.Measure{Simple: &domain.Term{Aggregate: a, Column: c}}
}

func countIf(c string) domain.Measure {
	return domain.Measure{Simple: &domain.Term{CountIf: c}}
}

func metric(name string, m domain.Measure, rfs ...domain.RequiredFilter) domain.MetricRef {
	return domain.MetricRef{Name: name, Measure: m, RequiredFilters: rfs}
}

func dim(name, alias, column string) domain.DimensionRef {
	return domain.DimensionRef{Name: name, Column: domain.ColumnRef{Alias: alias, Column: column}}
}

func filter(op domain.Op, alias, column string, values ...string) domain.FilterRef {
	return domain.FilterRef{Dimension: column, Column: domain.ColumnRef{Alias: alias, Column: column}, Op: op, Values: values}
}

func day(t testing.TB, s string) domain.Date {
	d, err := domain.ParseDate(s)
	require.NoError(t, err)
	return d
}

// mkPlan builds a plan for leg with the answer columns the compiler
// would list.
func mkPlan(t testing.TB, g domain.Grain, start, end string, leg domain.Leg) *domain.Plan {
	if leg.Source == "" {
		leg.Source = "files"
	}
	var cols []domain.Column
	for _, d := range leg.Dimensions {
		cols = append(cols, domain.Column{Name: d.Name, Role: domain.RoleDimension})
	}
	cols = append(cols, domain.Column{Name: "period", Role: domain.RolePeriod})
	for _, m := range leg.Metrics {
		cols = append(cols, domain.Column{Name: m.Name, Role: domain.RoleMetric})
	}
	return &domain.Plan{
		Columns: cols, Grain: g,
		Range:  domain.Range{Start: day(t, start), End: day(t, end)},
		Legs:   []domain.Leg{leg},
		RowCap: domain.MaxRowCap,
	}
}

// rendered is the row set as text.
func rendered(rs *domain.RowSet) [][]string {
	out := [][]string{}
	for _, r := range rs.Rows {
		row := make([]string, len(r))
		for i, c := range r {
			row[i] = c.Render()
		}
		out = append(out, row)
	}
	return out
}

// write creates dir/name with content.
func write(t testing.TB, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
}

// newEngine opens a files source over fsys.
func newEngine(t testing.TB, fsys fs.FS, models ...domain.Model) *Engine {
	t.Helper()
	e, err := New(context.Background(), Config{Source: "files", Files: fsys, Models: models})
	require.NoError(t, err)
	return e
}

// run executes and renders, failing on error.
func run(t testing.TB, e *Engine, p *domain.Plan) [][]string {
	t.Helper()
	rs, err := e.Execute(context.Background(), p)
	require.NoError(t, err)
	return rendered(rs)
}

// refusal returns the code of a refusal error, or fails.
func refusal(t testing.TB, err error) domain.Code {
	t.Helper()
	var re *domain.RefusalError
	require.True(t, errors.As(err, &re), "want a refusal, got %v", err)
	return re.Reason.Code()
}

// stopsOnCancel runs ask five times, each with a context cancelled 20 ms
// in (or a fifth of reference's time in, when that is sooner: a fast
// machine loads a test's file whole in 25 ms, and a question answered
// before its cancellation proves nothing), requires every run to end with
// context.Canceled, and asserts that
// the median time from the cancellation to ask's return is under bound,
// or, on a machine so busy that the work itself runs slowly, under a
// quarter of the time reference takes there, timed first: reference runs
// the question uncancelled (where that leaves the engine under test as it
// was), or a part of it that takes a few hundred milliseconds on a quiet
// machine, so that the bound there stays bound; an engine that does not
// stop returns about the whole question's time after. The median, not every run: one run may be descheduled for longer
// than the engine takes to stop, while an engine that does not stop makes
// every run late. after, when set, checks the engine after each run.
func stopsOnCancel(t *testing.T, bound time.Duration, reference func() error, ask func(context.Context) error, after func()) {
	t.Helper()
	const runs = 5
	began := time.Now()
	require.NoError(t, reference(), "uncancelled")
	full := time.Since(began)
	latencies := make([]time.Duration, 0, runs)
	for range runs {
		ctx, cancel := context.WithCancel(context.Background())
		var mu sync.Mutex
		var cancelled time.Time
		timer := time.AfterFunc(min(20*time.Millisecond, full/5), func() {
			mu.Lock()
			cancelled = time.Now()
			mu.Unlock()
			cancel()
		})
		err := ask(ctx)
		returned := time.Now()
		timer.Stop()
		cancel()
		require.ErrorIs(t, err, context.Canceled)
		mu.Lock()
		at := cancelled
		mu.Unlock()
		require.False(t, at.IsZero(), "ask returned before it was cancelled")
		latencies = append(latencies, returned.Sub(at))
		if after != nil {
			after()
		}
	}
	slices.Sort(latencies)
	t.Logf("returned after cancellation in %v (sorted); the uncancelled reference took %v", latencies, full)
	assert.Less(t, latencies[runs/2], max(bound, full/4), "median time from cancellation to return")
}
