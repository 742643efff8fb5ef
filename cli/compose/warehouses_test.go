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

// TestFederatesFilesWithBigQuery: with the shop's stores moved to a
// bigquery source (bqtest's double of the API, reached as a loopback http
// endpoint), the process starts (the table is validated: tables.get and a
// dry run), and a question by city federates a base leg on files with a
// lookup leg on BigQuery, giving the answer the files alone give.
func TestFederatesFilesWithBigQuery(t *testing.T) {
	all, err := Open(t.Context(), configEnv(t, shopCatalog, ""), &bytes.Buffer{}, Options{})
	require.NoError(t, err)
	want := answer(t, all, byCity)
	all.Close()
	require.NotEmpty(t, want)

	d := bqtest.Start(t)
	d.Table("proj-sutura.shop.stores", bqtest.Field{Name: "store_id", Type: "INTEGER"}, bqtest.Field{Name: "city", Type: "STRING"})
	d.Answer(bqtest.Answer{Match: "LIMIT 0"})
	d.Answer(bqtest.Answer{Match: "`stores`", Schema: []bqtest.Field{{Name: "k", Type: "INTEGER"}, {Name: "d1", Type: "STRING"}},
		Rows: [][]any{{"1", "Lyon"}, {"2", "Paris"}}})
	cat := copyTree(t, shopCatalog)
	edit(t, filepath.Join(cat, "models/stores.md"), "source: files\ntable: stores", "source: wh\ntable: shop.stores")
	p, err := Open(t.Context(), configEnv(t, cat, "  wh: {kind: bigquery, posture: shared-service-user, project: proj-sutura, location: EU, endpoint: '"+d.Endpoint()+"'}\n"),
		&bytes.Buffer{}, Options{})
	require.NoError(t, err)
	defer p.Close()
	assert.Equal(t, want, answer(t, p, byCity))

	var lookups int
	for _, j := range d.Jobs() {
		if !j.DryRun {
			lookups++
			assert.Contains(t, j.Query, "`shop`.`stores`")
			assert.Equal(t, "EU", j.Location)
		}
	}
	assert.Equal(t, 1, lookups, "one lookup leg ran on BigQuery")
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
	o, err := openSources(context.Background(), s.Config, s.Bundle, nil)
	require.NoError(t, err)
	o.close()
	checks := CheckSources(context.Background(), s.Config)
	require.Len(t, checks, 2)
	assert.Equal(t, "ora", checks[1].Alias)
	assert.ErrorContains(t, checks[1].Err, "sources.ora: oracle source ora: the database cannot be reached")
}
