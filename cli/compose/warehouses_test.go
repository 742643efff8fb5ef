package compose

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/adapters/bigquery/bqtest"
	"sutura.dev/app"
	"sutura.dev/domain"
)

// byCity asks the shop's revenue by city: sales on files, stores on
// whichever source the catalogue puts them.
const byCity = `{"metrics":["revenue"],"grain":"month","range":{"start":"2025-01-01","end":"2025-04-01"},"dimensions":["city"]}`

// answer asks p q as the local operator and returns its rows as text.
func answer(t *testing.T, p *Process, q string) [][]string {
	t.Helper()
	question, err := domain.ParseQuestion([]byte(q))
	require.NoError(t, err)
	out, err := p.Surface.Answer(context.Background(), app.Caller{Principal: domain.LocalOperator}, question)
	require.NoError(t, err)
	require.Nil(t, out.Refusal, "refused: %v", out.Refusal)
	var rows [][]string
	for _, row := range out.Answer.Rows {
		var r []string
		for _, c := range row {
			r = append(r, c.Render())
		}
		rows = append(rows, r)
	}
	return rows
}

// TestFederatesFilesWithBigQuery: with one of the shop's models moved to a
// bigquery source (bqtest's double of the API, reached as a loopback http
// endpoint), the process starts (the table is validated: tables.get and a
// dry run; the anchor runs where its model is), and a question by city
// federates a leg on files with a leg on BigQuery, giving the answer the
// files alone give. The double returns the rows BigQuery would for each
// leg's statement; it evaluates nothing.
func TestFederatesFilesWithBigQuery(t *testing.T) {
	all, err := Open(t.Context(), configEnv(t, shopCatalog, ""), &bytes.Buffer{}, Options{})
	require.NoError(t, err)
	want := answer(t, all, byCity)
	all.Close()
	require.NotEmpty(t, want)

	integer, text, date := "INTEGER", "STRING", "DATE"
	for _, tc := range []struct {
		name, model, table string
		fields             []bqtest.Field
		answers            []bqtest.Answer
		leg                string
	}{
		{name: "a lookup leg on BigQuery", model: "stores", table: "stores",
			fields: []bqtest.Field{{Name: "store_id", Type: integer}, {Name: "city", Type: text}},
			answers: []bqtest.Answer{{Match: "`stores`", Schema: []bqtest.Field{{Name: "k", Type: integer}, {Name: "d1", Type: text}},
				Rows: [][]any{{"1", "Lyon"}, {"2", "Paris"}}}},
			leg: "`shop`.`stores`"},
		{name: "a base leg on BigQuery", model: "sales", table: "sales",
			fields: []bqtest.Field{{Name: "sale_id", Type: integer}, {Name: "sold_on", Type: date}, {Name: "amount", Type: integer},
				{Name: "store_id", Type: integer}, {Name: "status", Type: text}},
			answers: []bqtest.Answer{
				// The anchor of revenue: 2025 at year grain.
				{Match: "YEAR)", Schema: []bqtest.Field{{Name: "period", Type: date}, {Name: "revenue", Type: integer}},
					Rows: [][]any{{"2025-01-01", "890"}}},
				// The partials of the base leg, per store and month.
				{Match: "`shop`.`sales`", Schema: []bqtest.Field{{Name: "k1", Type: integer}, {Name: "period", Type: date}, {Name: "p1", Type: integer}},
					Rows: [][]any{{"1", "2025-01-01", "100"}, {"2", "2025-01-01", "250"}, {"3", "2025-02-01", "40"}, {"2", "2025-03-01", "500"}}},
			},
			leg: "`shop`.`sales`"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := bqtest.Start(t)
			d.Table("proj-sutura.shop."+tc.table, tc.fields...)
			d.Answer(bqtest.Answer{Match: "LIMIT 0"})
			for _, a := range tc.answers {
				d.Answer(a)
			}
			cat := copyTree(t, shopCatalog)
			edit(t, filepath.Join(cat, "models", tc.model+".md"), "source: files\ntable: "+tc.table, "source: wh\ntable: shop."+tc.table)
			p, err := Open(t.Context(), configEnv(t, cat, "  wh: {kind: bigquery, posture: shared-service-user, project: proj-sutura, location: EU, endpoint: '"+d.Endpoint()+"'}\n"),
				&bytes.Buffer{}, Options{})
			require.NoError(t, err)
			defer p.Close()
			before := len(d.Jobs())
			assert.Equal(t, want, answer(t, p, byCity))

			// The leg's estimate is a dry run of the same statement
			// (docs/contract.md §15); one job then ran.
			var ran []bqtest.Job
			for _, j := range d.Jobs()[before:] {
				if j.DryRun {
					assert.Contains(t, j.Query, tc.leg, "the estimate dry-runs the leg's statement")
					continue
				}
				ran = append(ran, j)
			}
			require.Len(t, ran, 1, "one leg ran on BigQuery")
			assert.Contains(t, ran[0].Query, tc.leg)
			assert.Equal(t, "EU", ran[0].Location)
		})
	}
}

// TestDoctorReachesBigQuery: doctor's check of a bigquery source is a dry
// run, and a source whose endpoint does not answer is reported.
func TestDoctorReachesBigQuery(t *testing.T) {
	d := bqtest.Start(t)
	d.Answer(bqtest.Answer{Match: "SELECT 1"})
	s, err := Load(configEnv(t, shopCatalog, "  wh: {kind: bigquery, posture: shared-service-user, project: proj-sutura, location: EU, endpoint: '"+d.Endpoint()+"'}\n"), &bytes.Buffer{})
	require.NoError(t, err)
	for _, c := range CheckSources(context.Background(), s.Config) {
		assert.NoError(t, c.Err, c.Alias)
	}
	require.Len(t, d.Jobs(), 1)
	assert.True(t, d.Jobs()[0].DryRun)

	d.Close()
	checks := CheckSources(context.Background(), s.Config)
	require.Len(t, checks, 2)
	assert.Error(t, checks[1].Err, "the closed double does not answer")
	assert.Equal(t, "wh", checks[1].Alias)
}

// TestOracleSourceOpens: an oracle source opens (its settings checked by
// the adapter) without reaching a server, and doctor reports the listener
// that is not there naming the source.
func TestOracleSourceOpens(t *testing.T) {
	s, err := Load(configEnv(t, shopCatalog, "  ora: {kind: oracle, posture: shared-service-user, host: 127.0.0.1, port: 1, service: FREEPDB1, user: u, password_file: pgpass, transport_mode: plaintext}\n"), &bytes.Buffer{})
	require.NoError(t, err)
	o, err := openSources(context.Background(), s.Config, s.Bundle, nil, false)
	require.NoError(t, err)
	o.close()
	checks := CheckSources(context.Background(), s.Config)
	require.Len(t, checks, 2)
	assert.Equal(t, "ora", checks[1].Alias)
	assert.ErrorContains(t, checks[1].Err, "sources.ora: oracle source ora: the database cannot be reached")
}
