package bigquery_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sutura.dev/adapters/bigquery"
	"sutura.dev/adapters/bigquery/bqtest"
	"sutura.dev/adapters/sqlsource/sqltest"
	"sutura.dev/domain"
)

const eastQuestion = `{"metrics":["net_sales"],"grain":"month","range":{"start":"2026-01-01","end":"2026-04-01"},"dimensions":["area"],"filters":[{"op":"eq","dimension":"area","value":"East"}]}`

// TestExecuteRunsOneJobWithTypedParameters: a question is one job with
// the statement's values as typed named parameters, maximum_bytes_billed,
// the deadline as its timeout, the location and the default dataset; its
// rows come back as canonical cells and its cost is the bytes processed.
func TestExecuteRunsOneJobWithTypedParameters(t *testing.T) {
	d := bqtest.Start(t)
	d.Answer(bqtest.Answer{Match: "DATE_TRUNC", BytesProcessed: 4096,
		Schema: []bqtest.Field{{Name: "area", Type: "STRING"}, {Name: "period", Type: "DATE"}, {Name: "net_sales", Type: "INTEGER"}},
		Rows:   [][]any{{"East", "2026-01-01", "1200"}, {"East", "2026-02-01", nil}}})
	cfg := config(d)
	cfg.MaximumBytesBilled = 1 << 20
	db := open(t, cfg)
	plan := sqltest.Compile(t, demoBundle(t), domain.LocalOperator, eastQuestion)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	rs, cost, err := db.ExecuteWithCost(ctx, plan)
	require.NoError(t, err)
	assert.Equal(t, [][]string{{"East", "2026-01-01", "1200"}, {"East", "2026-02-01", "null"}}, sqltest.Rendered(rs))
	assert.Equal(t, int64(4096), cost.BytesRead)

	jobs := d.Jobs()
	require.Len(t, jobs, 1)
	j := jobs[0]
	assert.Contains(t, j.Query, "@p1")
	assert.NotContains(t, j.Query, "East", "no value of the question is written into the SQL")
	assert.Equal(t, map[string]string{"p1": "DATE 2026-01-01", "p2": "DATE 2026-04-01", "p3": "STRING East", "p4": "STRING cancelled"}, j.Params)
	assert.Equal(t, int64(1<<20), j.MaximumBytesBilled)
	assert.Equal(t, "EU", j.Location)
	assert.Equal(t, "proj-sutura.shop", j.DefaultDataset)
	assert.False(t, j.DryRun)
	assert.Positive(t, j.JobTimeoutMs)
	assert.LessOrEqual(t, j.JobTimeoutMs, int64(20_000), "the job's timeout is the rest of the question's deadline")
}

// TestDefaultMaximumBytesBilled: a source without maximum_bytes_billed
// still passes a bound on every job.
func TestDefaultMaximumBytesBilled(t *testing.T) {
	d := bqtest.Start(t)
	d.Answer(bqtest.Answer{Schema: []bqtest.Field{{Name: "x", Type: "INTEGER"}}, Rows: [][]any{{"1"}}})
	db := open(t, config(d))
	_, err := db.RunSQL(context.Background(), "SELECT 1 AS x", 10)
	require.NoError(t, err)
	for _, j := range d.Jobs() {
		assert.Equal(t, bigquery.DefaultMaximumBytesBilled, j.MaximumBytesBilled, "job %s", j.ID)
	}
}

// TestCells: every type BigQuery returns renders as the engine renders it;
// NUMERIC and BIGNUMERIC are read exactly from their decimal text.
func TestCells(t *testing.T) {
	d := bqtest.Start(t)
	d.Answer(bqtest.Answer{
		Schema: []bqtest.Field{{Name: "i", Type: "INTEGER"}, {Name: "n", Type: "NUMERIC"}, {Name: "whole", Type: "NUMERIC"},
			{Name: "big", Type: "BIGNUMERIC"}, {Name: "wide", Type: "BIGNUMERIC"}, {Name: "f", Type: "FLOAT"},
			{Name: "b", Type: "BOOLEAN"}, {Name: "s", Type: "STRING"}, {Name: "d", Type: "DATE"},
			{Name: "ts", Type: "TIMESTAMP"}, {Name: "dt", Type: "DATETIME"}, {Name: "nothing", Type: "INTEGER"}},
		Rows: [][]any{{"-9223372036854775808", "12.500000000", "7.000000000", "0.1", "123456789012345678901234567890",
			"1.5", "true", "Zoë", "2026-01-31", "1767225600123456", "2026-01-01T12:30:00", nil}}})
	db := open(t, config(d))
	rs, err := db.RunSQL(context.Background(), "SELECT everything", 10)
	require.NoError(t, err)
	names := []string{}
	for _, c := range rs.Columns {
		names = append(names, c.Name)
	}
	assert.Equal(t, []string{"i", "n", "whole", "big", "wide", "f", "b", "s", "d", "ts", "dt", "nothing"}, names)
	assert.Equal(t, [][]string{{"-9223372036854775808", "12.5", "7", "0.1", "123456789012345678901234567890", "1.5", "true", "Zoë",
		"2026-01-31", "2026-01-01T00:00:00.123456Z", "2026-01-01T12:30:00Z", "null"}}, sqltest.Rendered(rs))
	require.Len(t, rs.Rows, 1)
	assert.Equal(t, domain.Int(7), rs.Rows[0][2], "an integral NUMERIC is an integer cell")
}

// TestPagesNeverFetchMoreThanCapPlusOne: rows are read page by page
// (pageToken), every page asks for at most the row cap plus one rows, and
// a result past the cap is refused after at most cap+1 rows were fetched.
func TestPagesNeverFetchMoreThanCapPlusOne(t *testing.T) {
	rows := func(n int) [][]any {
		out := [][]any{}
		for i := range n {
			out = append(out, []any{fmt.Sprint(i)})
		}
		return out
	}
	schema := []bqtest.Field{{Name: "n", Type: "INTEGER"}}
	t.Run("several pages", func(t *testing.T) {
		d := bqtest.Start(t)
		d.PageLimit = 2
		d.Answer(bqtest.Answer{Schema: schema, Rows: rows(5)})
		db := open(t, config(d))
		rs, err := db.RunSQL(context.Background(), "SELECT n", 5)
		require.NoError(t, err)
		assert.Len(t, rs.Rows, 5)
		assert.Equal(t, []int64{6, 6, 6}, d.Pages(), "three pages of at most two rows, each asking for cap+1")
	})
	t.Run("past the cap", func(t *testing.T) {
		d := bqtest.Start(t)
		d.Answer(bqtest.Answer{Schema: schema, Rows: rows(50)})
		db := open(t, config(d))
		_, err := db.RunSQL(context.Background(), "SELECT n", 3)
		assert.Equal(t, domain.ResultTooLarge, sqltest.RefusalCode(err))
		assert.LessOrEqual(t, d.RowsSent(), 4)
	})
}

// TestCancellationCancelsTheJob: a question whose context ends while its
// job runs cancels the job (jobs.cancel) before Execute returns, whether
// the deadline passed (deadline_exceeded) or the caller cancelled.
func TestCancellationCancelsTheJob(t *testing.T) {
	plan := sqltest.Compile(t, demoBundle(t), domain.LocalOperator, eastQuestion)
	t.Run("deadline", func(t *testing.T) {
		d := bqtest.Start(t)
		d.Answer(bqtest.Answer{Hold: true})
		db := open(t, config(d))
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		_, err := db.Execute(ctx, plan)
		assert.Equal(t, domain.DeadlineExceeded, sqltest.RefusalCode(err))
		jobs := d.Jobs()
		require.Len(t, jobs, 1)
		assert.Equal(t, []string{jobs[0].ID}, d.Cancelled())
		assert.LessOrEqual(t, jobs[0].JobTimeoutMs, int64(300))
	})
	t.Run("during the insert", func(t *testing.T) {
		d := bqtest.Start(t)
		d.Answer(bqtest.Answer{InsertDelay: 5 * time.Second})
		db := open(t, config(d))
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		_, err := db.Execute(ctx, plan)
		assert.Equal(t, domain.DeadlineExceeded, sqltest.RefusalCode(err))
		jobs := d.Jobs()
		require.NotEmpty(t, jobs)
		assert.Contains(t, d.Cancelled(), jobs[0].ID, "the job whose insert was cut short is cancelled by its id")
		assert.True(t, strings.HasPrefix(jobs[0].ID, "sutura_"+source+"_"), jobs[0].ID)
	})
	t.Run("cancelled", func(t *testing.T) {
		d := bqtest.Start(t)
		d.Answer(bqtest.Answer{Hold: true})
		db := open(t, config(d))
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(200*time.Millisecond, cancel)
		_, err := db.Execute(ctx, plan)
		assert.ErrorIs(t, err, context.Canceled)
		jobs := d.Jobs()
		require.Len(t, jobs, 1)
		assert.Equal(t, []string{jobs[0].ID}, d.Cancelled())
	})
}

// TestErrors: BigQuery's error reasons, at insert or when the job fails,
// map to refusals and error kinds; no error's text holds BigQuery's
// message.
func TestErrors(t *testing.T) {
	const secret = "Table proj:shop.orders secret detail"
	plan := sqltest.Compile(t, demoBundle(t), domain.LocalOperator, eastQuestion)
	for _, tc := range []struct {
		name   string
		answer bqtest.Answer
		code   domain.Code
		kind   error
	}{
		{"access denied at insert", bqtest.Answer{InsertError: &bqtest.APIError{Status: 403, Reason: "accessDenied", Message: secret}}, domain.SourceRefused, nil},
		{"quota", bqtest.Answer{InsertError: &bqtest.APIError{Status: 403, Reason: "quotaExceeded", Message: secret}}, domain.SourceRefused, nil},
		{"bytes billed", bqtest.Answer{Error: &bqtest.APIError{Status: 400, Reason: "bytesBilledLimitExceeded", Message: secret}}, domain.ScanCeilingExceeded, nil},
		{"response too large", bqtest.Answer{Error: &bqtest.APIError{Status: 403, Reason: "responseTooLarge", Message: secret}}, domain.ResultTooLarge, nil},
		{"resources", bqtest.Answer{Error: &bqtest.APIError{Status: 400, Reason: "resourcesExceeded", Message: secret}}, domain.ResourcesExhausted, nil},
		{"job timeout", bqtest.Answer{Error: &bqtest.APIError{Status: 400, Reason: "timeout", Message: secret}}, domain.DeadlineExceeded, nil},
		{"invalid query", bqtest.Answer{InsertError: &bqtest.APIError{Status: 400, Reason: "invalidQuery", Message: secret}}, "", domain.ErrRejected},
		{"not found", bqtest.Answer{Error: &bqtest.APIError{Status: 404, Reason: "notFound", Message: secret}}, "", domain.ErrRejected},
		{"sign-in", bqtest.Answer{InsertError: &bqtest.APIError{Status: 401, Reason: "authError", Message: secret}}, "", domain.ErrUnavailable},
		{"division by zero", bqtest.Answer{Error: &bqtest.APIError{Status: 400, Reason: "invalidQuery", Message: "division by zero: 1 / 0"}}, "", domain.ErrZeroDenominator},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := bqtest.Start(t)
			d.Answer(tc.answer)
			db := open(t, config(d))
			_, err := db.Execute(context.Background(), plan)
			require.Error(t, err)
			assert.NotContains(t, err.Error(), "secret")
			if tc.code != "" {
				assert.Equal(t, tc.code, sqltest.RefusalCode(err), "%v", err)
				return
			}
			assert.ErrorIs(t, err, tc.kind)
			var e *bigquery.Error
			if errors.Is(tc.kind, domain.ErrRejected) {
				require.ErrorAs(t, err, &e)
				assert.Equal(t, secret, e.Message, "the message is kept for run_sql's author")
			}
		})
	}
}

// TestPing: doctor's round trip is a dry run, which bills nothing.
func TestPing(t *testing.T) {
	d := bqtest.Start(t)
	d.Answer(bqtest.Answer{Match: "SELECT 1"})
	db := open(t, config(d))
	require.NoError(t, db.Ping(context.Background()))
	jobs := d.Jobs()
	require.Len(t, jobs, 1)
	assert.True(t, jobs[0].DryRun)
}

// TestEstimateBytes: the estimate is a dry run's totalBytesProcessed.
func TestEstimateBytes(t *testing.T) {
	d := bqtest.Start(t)
	d.Answer(bqtest.Answer{BytesProcessed: 123456})
	db := open(t, config(d))
	n, err := db.EstimateBytes(context.Background(), sqltest.Compile(t, demoBundle(t), domain.LocalOperator, eastQuestion))
	require.NoError(t, err)
	assert.Equal(t, int64(123456), n)
	require.Len(t, d.Jobs(), 1)
	assert.True(t, d.Jobs()[0].DryRun)

	// Through the application's estimator port: known, the same figure.
	d2 := bqtest.Start(t)
	d2.Answer(bqtest.Answer{BytesProcessed: 654321})
	n, known, err := open(t, config(d2)).Estimate(context.Background(), sqltest.Compile(t, demoBundle(t), domain.LocalOperator, eastQuestion))
	require.NoError(t, err)
	assert.True(t, known)
	assert.Equal(t, int64(654321), n)
}

// TestUnreachable: an endpoint nobody listens on is unavailable, not a
// deadline, though the client library retries it until the deadline.
func TestUnreachable(t *testing.T) {
	d := bqtest.Start(t)
	db := open(t, config(d))
	d.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	err := db.Ping(ctx)
	var e *bigquery.Error
	require.ErrorAs(t, err, &e, "%v", err)
	assert.ErrorIs(t, err, domain.ErrUnavailable)
	assert.Equal(t, "bigquery source "+source+": the BigQuery API cannot be reached", err.Error())
}

// TestTraceComment: a job sent under a traced call ends with the call's
// traceparent comment, so BigQuery's job history links back to the trace;
// the explanation's statement is the same text (docs/contract.md §16).
func TestTraceComment(t *testing.T) {
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	d := bqtest.Start(t)
	d.Answer(bqtest.Answer{})
	db := open(t, config(d))
	plan := sqltest.Compile(t, demoBundle(t), domain.LocalOperator, eastQuestion)
	ctx := domain.WithTraceParent(context.Background(), tp)
	// The double's answer has no rows of the plan's shape: only the job
	// sent matters here, not its outcome.
	_, _ = db.Execute(ctx, plan)
	jobs := d.Jobs()
	require.NotEmpty(t, jobs)
	assert.True(t, strings.HasSuffix(jobs[len(jobs)-1].Query, " /* traceparent='"+tp+"' */"), jobs[len(jobs)-1].Query)

	st, err := db.Statement(ctx, plan)
	require.NoError(t, err)
	assert.Equal(t, jobs[len(jobs)-1].Query, st.Text)
	assert.Equal(t, "bigquery", st.Dialect)

	// A call without a trace sends no comment.
	_, _ = db.Execute(context.Background(), plan)
	jobs = d.Jobs()
	assert.NotContains(t, jobs[len(jobs)-1].Query, "traceparent")
}
