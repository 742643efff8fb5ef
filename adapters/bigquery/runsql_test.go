package bigquery_test

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sutura.dev/adapters/bigquery"
	"sutura.dev/adapters/bigquery/bqtest"
	"sutura.dev/adapters/sqlsource/sqltest"
	"sutura.dev/domain"
)

func writeAll(path, content string) error { return os.WriteFile(path, []byte(content), 0o600) }

// TestRunSQLRunsOnlyWhatADryRunCallsASelect: run_sql dry-runs first and
// runs only a SELECT; anything else is refused without a job that runs.
func TestRunSQLRunsOnlyWhatADryRunCallsASelect(t *testing.T) {
	for _, typ := range []string{"INSERT", "DELETE", "MERGE", "CREATE_TABLE", "SCRIPT", "DROP_TABLE", "EXPORT_DATA"} {
		t.Run(typ, func(t *testing.T) {
			d := bqtest.Start(t)
			d.Answer(bqtest.Answer{StatementType: typ})
			db := open(t, config(d))
			_, err := db.RunSQL(context.Background(), "anything", 10)
			assert.Equal(t, domain.SourceRefused, sqltest.RefusalCode(err))
			assert.ErrorContains(t, err, typ)
			for _, j := range d.Jobs() {
				assert.True(t, j.DryRun, "only the dry run was sent")
			}
		})
	}
	t.Run("select", func(t *testing.T) {
		d := bqtest.Start(t)
		d.Answer(bqtest.Answer{Schema: []bqtest.Field{{Name: "n", Type: "INTEGER"}}, Rows: [][]any{{"3"}}})
		db := open(t, config(d))
		rs, err := db.RunSQL(context.Background(), "SELECT 3 AS n", 10)
		require.NoError(t, err)
		assert.Equal(t, [][]string{{"3"}}, sqltest.Rendered(rs))
		jobs := d.Jobs()
		require.Len(t, jobs, 2)
		assert.True(t, jobs[0].DryRun)
		assert.False(t, jobs[1].DryRun)
	})
	t.Run("empty", func(t *testing.T) {
		d := bqtest.Start(t)
		db := open(t, config(d))
		_, err := db.RunSQL(context.Background(), "  ", 10)
		assert.ErrorIs(t, err, bigquery.ErrEmptyStatement)
		assert.Empty(t, d.Jobs())
	})
	t.Run("a syntax error keeps BigQuery's message for the author", func(t *testing.T) {
		d := bqtest.Start(t)
		d.Answer(bqtest.Answer{Error: &bqtest.APIError{Status: 400, Reason: "invalidQuery", Message: "Syntax error: Unexpected end of script at [1:7]"}})
		db := open(t, config(d))
		_, err := db.RunSQL(context.Background(), "SELECT", 10)
		var e *bigquery.Error
		require.ErrorAs(t, err, &e)
		assert.ErrorIs(t, err, domain.ErrRejected)
		assert.Contains(t, e.Message, "Syntax error")
		assert.NotContains(t, err.Error(), "Syntax error")
	})
}

// TestRunSQLTraced: under a traced call both the dry run and the job of a
// run_sql statement end with the call's traceparent comment (docs/contract.md
// §16), after the statement's own trailing semicolon is dropped.
func TestRunSQLTraced(t *testing.T) {
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	d := bqtest.Start(t)
	d.Answer(bqtest.Answer{Schema: []bqtest.Field{{Name: "n", Type: "INTEGER"}}, Rows: [][]any{{"3"}}})
	db := open(t, config(d))
	_, err := db.RunSQL(domain.WithTraceParent(context.Background(), tp), "SELECT 3 AS n; ", 10)
	require.NoError(t, err)
	jobs := d.Jobs()
	require.Len(t, jobs, 2)
	for _, j := range jobs {
		assert.Equal(t, "SELECT 3 AS n\n/* traceparent='"+tp+"' */", j.Query)
	}
}
