package app_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/app/apptest"
	"sutura.dev/domain"
	"sutura.dev/runtime"
)

const sqlCanary = "select 'ZZ-sql-canary-5e1f' as secret"

func sqlResult() *domain.RowSet {
	return &domain.RowSet{
		Columns: []domain.Column{{Name: "city", Role: domain.RoleDimension}, {Name: "total"}},
		Rows:    [][]domain.Cell{{domain.Text("Lyon"), domain.Int(42)}, {domain.Null(), domain.Float(1.5)}},
	}
}

func TestRunSQLAnswersWithoutProvenanceAndIsAudited(t *testing.T) {
	sys := &apptest.SQL{Result: sqlResult()}
	s, audit, adm := newSurface(t, sys, 2, 5*time.Second, withSQL)
	out, err := s.RunSQL(t.Context(), anon, sqlCanary)
	require.NoError(t, err)
	require.Nil(t, out.Refusal)
	require.NotNil(t, out.Rows)
	assert.Equal(t, []domain.Column{{Name: "city"}, {Name: "total"}}, out.Rows.Columns, "columns carry no role")
	assert.Equal(t, sqlResult().Rows, out.Rows.Rows)
	assert.Equal(t, []string{sqlCanary}, sys.Statements())
	assert.Equal(t, []int{domain.MaxRowCap}, sys.RowCaps(), "the row cap is applied by the runner")
	assert.Equal(t, 0, adm.InUse(), "the slot is given back")
	recs := audit.Records()
	require.Len(t, recs, 2, "a record before the statement runs, and its outcome")
	assert.Equal(t, "started", recs[0].Outcome)
	assert.Equal(t, sqlCanary, recs[0].Statement, "the start record holds the statement")
	assert.Equal(t, recs[1].CorrelationID, recs[0].CorrelationID)
	rec := recs[1]
	assert.Equal(t, domain.RunSQL, rec.Capability)
	assert.Equal(t, sqlCanary, rec.Statement, "audited with its statement")
	assert.Equal(t, "answer", rec.Outcome)
	assert.Equal(t, 2, rec.Rows)
	assert.Equal(t, "c-1", rec.CorrelationID)
	assert.Equal(t, []string{"agent"}, rec.Principal)
	assert.Equal(t, []domain.ExecutedAs{{Source: apptest.SourceName, Posture: domain.SharedServiceUser}}, rec.ExecutedAs)
	assert.Empty(t, rec.Metrics)
}

func TestRunSQLRefusalsAndFailures(t *testing.T) {
	for _, tc := range []struct {
		name    string
		sys     *apptest.SQL
		timeout time.Duration
		code    domain.Code // a refusal
		err     error       // or a failure
		audit   string
	}{
		{"more rows than the cap", &apptest.SQL{Generate: domain.MaxRowCap + 5}, 5 * time.Second, domain.ResultTooLarge, nil, "result_too_large"},
		{"exactly the cap", &apptest.SQL{Generate: domain.MaxRowCap}, 5 * time.Second, "", nil, ""},
		{"the runner refuses a write", &apptest.SQL{Err: &domain.RefusalError{Reason: domain.Refuse(domain.SourceRefused, "run_sql is read-only")}}, 5 * time.Second, domain.SourceRefused, nil, "source_refused"},
		{"the execution budget", &apptest.SQL{Block: true}, 2 * time.Second, domain.DeadlineExceeded, nil, "deadline_exceeded"},
		{"the statement fails", &apptest.SQL{Err: &apptest.StatementError{Text: "syntax error at " + sqlCanary}}, 5 * time.Second, "", app.ErrStatementFailed, "statement_failed"},
		{"the database is down", &apptest.SQL{Err: errors.New("dial tcp: refused " + sqlCanary)}, 5 * time.Second, "", app.ErrUnavailable, "unavailable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, audit, adm := newSurface(t, tc.sys, 1, tc.timeout, withSQL)
			start := time.Now()
			out, err := s.RunSQL(t.Context(), anon, sqlCanary)
			assert.Less(t, time.Since(start), tc.timeout, "execution ends before the caller's deadline")
			assert.Equal(t, 0, adm.InUse())
			recs := audit.Records()
			require.Len(t, recs, 2)
			assert.Equal(t, "started", recs[0].Outcome)
			recs = recs[1:]
			assert.Equal(t, sqlCanary, recs[0].Statement)
			switch {
			case tc.err != nil:
				require.ErrorIs(t, err, tc.err)
				assert.Equal(t, "failure", recs[0].Outcome)
				assert.Equal(t, tc.audit, recs[0].Code)
			case tc.code != "":
				require.NoError(t, err)
				require.NotNil(t, out.Refusal)
				assert.Nil(t, out.Rows)
				assert.Equal(t, tc.code, out.Refusal.Code())
				assert.NotContains(t, out.Refusal.Detail(), "canary")
				assert.Equal(t, "refusal", recs[0].Outcome)
				assert.Equal(t, tc.audit, recs[0].Code)
			default:
				require.NoError(t, err)
				require.Len(t, out.Rows.Rows, domain.MaxRowCap)
				assert.Equal(t, "answer", recs[0].Outcome)
			}
		})
	}
}

func TestRunSQLAtCapacityAndCancel(t *testing.T) {
	sys := &apptest.SQL{Block: true}
	s, audit, adm := newSurface(t, sys, 1, 30*time.Second, withSQL)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { _, err := s.RunSQL(ctx, anon, "select pg_sleep(60)"); done <- err }()
	<-sys.Started()
	assert.Equal(t, 1, adm.InUse())
	_, err := s.RunSQL(t.Context(), anon, "select 1")
	require.ErrorIs(t, err, app.ErrAtCapacity)
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	assert.Equal(t, 0, adm.InUse(), "the slot is back once the statement stopped")
	require.Len(t, sys.Ended(), 1, "the cancellation reached the runner")
	var outcomes []string
	for _, r := range audit.Records() {
		assert.Equal(t, domain.RunSQL, r.Capability)
		outcomes = append(outcomes, r.Outcome+" "+r.Code)
	}
	assert.Equal(t, []string{"started ", "failure at_capacity", "failure cancelled"}, outcomes,
		"failures are audited too; only the statement that ran was announced")
}

func TestRunSQLNeedsOneSharedSQLSource(t *testing.T) {
	adm, err := runtime.NewAdmission(runtime.AdmissionConfig{MaxConcurrent: 1, Timeout: time.Second})
	require.NoError(t, err)
	build := func(sources map[string]app.Source, tools []app.Tool) (*app.Surface, error) {
		return app.New(app.Config{Catalog: apptest.Catalog{Pinned: apptest.Bundle(t, "v1")}, Sources: sources, Admission: adm,
			Audit: &apptest.Audit{}, Tools: tools})
	}
	enabled := app.Tools(app.ToolOptions{RunSQL: true})
	shared, imp := domain.SharedServiceUser, domain.ImpersonationAtSource
	for _, tc := range []struct {
		name    string
		sources map[string]app.Source
		err     string
	}{
		{"none", apptest.Sources(&apptest.System{}), "no configured source can run SQL"},
		{"two", map[string]app.Source{"a": {System: &apptest.SQL{}, Posture: shared}, "b": {System: &apptest.SQL{}, Posture: shared}},
			"several configured sources can run SQL (a, b): name the one it runs on in tools.run_sql.source"},
		{"only an impersonating one", map[string]app.Source{"pg": {System: impersonating{&apptest.SQL{}}, Posture: imp}},
			"source pg is impersonation-at-source, and run_sql never runs on an impersonating source"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := build(tc.sources, enabled)
			require.ErrorIs(t, err, app.ErrSQLNotAvailable)
			assert.ErrorContains(t, err, "tools.run_sql.enabled")
			assert.ErrorContains(t, err, tc.err)
		})
	}

	// tools.run_sql.source chooses among several; it must name a shared
	// source that can run SQL.
	two := map[string]app.Source{"a": {System: &apptest.SQL{}, Posture: shared}, "b": {System: &apptest.SQL{}, Posture: shared},
		"imp": {System: impersonating{&apptest.SQL{}}, Posture: imp}, "files": {System: &apptest.System{}, Posture: shared}}
	for chosen, want := range map[string]string{
		"b":     "",
		"zz":    "tools.run_sql.source names no configured source",
		"files": "tools.run_sql.source names source files, whose data system cannot run SQL",
		"imp":   "tools.run_sql.source names source imp, which is impersonation-at-source",
	} {
		s, err := app.New(app.Config{Catalog: apptest.Catalog{Pinned: apptest.Bundle(t, "v1")}, Sources: two, Admission: adm,
			Audit: &apptest.Audit{}, Tools: enabled, SQLSource: chosen})
		if want != "" {
			require.ErrorIs(t, err, app.ErrSQLNotAvailable, chosen)
			assert.ErrorContains(t, err, want)
			continue
		}
		require.NoError(t, err)
		alias, err := s.SQLSource()
		require.NoError(t, err)
		assert.Equal(t, chosen, alias)
	}

	one, err := build(map[string]app.Source{"pg": {System: &apptest.SQL{}, Posture: shared}, "imp": {System: impersonating{&apptest.SQL{}}, Posture: imp},
		"files": {System: &apptest.System{}, Posture: shared}}, enabled)
	require.NoError(t, err)
	alias, err := one.SQLSource()
	require.NoError(t, err)
	assert.Equal(t, "pg", alias, "the shared source, never the impersonating one")

	off, err := build(map[string]app.Source{"pg": {System: &apptest.SQL{}, Posture: shared}}, nil)
	require.NoError(t, err, "a source that could run SQL does not enable run_sql")
	_, err = off.RunSQL(t.Context(), anon, sqlCanary)
	require.ErrorIs(t, err, app.ErrToolNotEnabled)
	var f *app.Failure
	require.ErrorAs(t, err, &f)
	assert.Equal(t, app.CodeToolNotEnabled, f.Code)
	assert.NotContains(t, err.Error(), "canary")
}

// impersonating is a SQL runner that can also run a question as the caller.
type impersonating struct{ *apptest.SQL }

func (i impersonating) ExecuteAs(ctx context.Context, _ domain.Principal, plan *domain.Plan) (*domain.RowSet, error) {
	return i.Execute(ctx, plan)
}

func TestRunSQLGuardsTheStatement(t *testing.T) {
	sys := &apptest.SQL{}
	s, _, _ := newSurface(t, sys, 1, 5*time.Second, withSQL)
	for _, st := range []string{"", "  \n", string(make([]byte, app.MaxStatementBytes+1)), "select '\xff'"} {
		_, err := s.RunSQL(t.Context(), anon, st)
		require.ErrorIs(t, err, app.ErrNotAQuestion)
	}
	assert.Empty(t, sys.Statements(), "never sent to the data system")
}

func TestRunSQLAuditFailureFails(t *testing.T) {
	sys := &apptest.SQL{}
	s, audit, _ := newSurface(t, sys, 1, 5*time.Second, withSQL)
	audit.Fail(errors.New("disk full"))
	_, err := s.RunSQL(t.Context(), anon, "select 1")
	require.ErrorIs(t, err, app.ErrInternal)
	assert.Empty(t, sys.Statements(), "a statement whose start record cannot be written never runs")
}

func TestCheckRefusesAPrivilegedRunSQLRole(t *testing.T) {
	anchored := &apptest.System{Rows: [][]domain.Cell{{domain.DateCell(domain.DateOf(2025, 1, 1)), domain.Int(42)}}}
	for _, tc := range []struct {
		name    string
		enabled bool
		role    error
		checked int
		refusal string
	}{
		{"a role that may only read", true, nil, 1, ""},
		{"a superuser", true, errors.New("the login role is a superuser"), 1, "tools.run_sql.enabled: source files: its login role may not serve run_sql: the login role is a superuser"},
		{"run_sql off", false, errors.New("the login role is a superuser"), 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sys := &apptest.SQL{System: anchored, Privileged: tc.role}
			s, _, _ := newSurface(t, sys, 1, 5*time.Second, func(cfg *app.Config) {
				cfg.Tools = app.Tools(app.ToolOptions{RunSQL: tc.enabled})
			})
			err := s.Check(t.Context())
			assert.Equal(t, tc.checked, sys.PrivilegeChecks())
			if tc.refusal == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tc.refusal)
		})
	}
}
