package bigquery_test

import (
	"context"
	"io"
	"os"
	"testing"
	"time"

	bq "cloud.google.com/go/bigquery"
	"github.com/stretchr/testify/require"
	"google.golang.org/api/option"
	"sutura.dev/adapters/bigquery"
	"sutura.dev/adapters/sqlsource/sqltest"
	"sutura.dev/app/conformance"
	"sutura.dev/domain"
	"sutura.dev/testtier"
)

// The bigquery tier: the data-system contract suite, the federated legs
// and the anchors against BigQuery itself. It needs SUTURA_BIGQUERY_PROJECT
// (a project whose service account may create datasets and run jobs),
// credentials (SUTURA_BIGQUERY_CREDENTIALS_FILE, or
// GOOGLE_APPLICATION_CREDENTIALS for Application Default Credentials) and
// optionally SUTURA_BIGQUERY_LOCATION (US when unset). It makes a dataset
// of its own, loads the demo tables into it and deletes it at the end.
// Without them it says NOT RUN: bigquery (…); CI does not require it
// (testtier/tiers.tsv).

// bigqueryTypes are BigQuery's names of the declared column types.
var bigqueryTypes = sqltest.Types{Integer: "INTEGER", Float: "FLOAT", Decimal: "NUMERIC", Boolean: "BOOLEAN",
	Date: "DATE", Timestamp: "TIMESTAMP", Text: "STRING"}

// live is a BigQuery project of the tier.
type live struct {
	project, location, credentials string
}

func needLive(t *testing.T) live {
	t.Helper()
	l := live{project: os.Getenv("SUTURA_BIGQUERY_PROJECT"), location: os.Getenv("SUTURA_BIGQUERY_LOCATION"),
		credentials: os.Getenv("SUTURA_BIGQUERY_CREDENTIALS_FILE")}
	if l.project == "" {
		testtier.Need(t, "bigquery", "SUTURA_BIGQUERY_PROJECT unset")
	}
	if l.credentials == "" && os.Getenv("GOOGLE_APPLICATION_CREDENTIALS") == "" {
		testtier.Need(t, "bigquery", "no credentials: SUTURA_BIGQUERY_CREDENTIALS_FILE and GOOGLE_APPLICATION_CREDENTIALS unset")
	}
	if l.location == "" {
		l.location = "US"
	}
	return l
}

// loadDemo makes a dataset with the demo tables (their declared types,
// every other column STRING), deleted when t ends, and returns its id.
func (l live) loadDemo(t *testing.T, models []domain.Model) string {
	t.Helper()
	ctx := context.Background()
	var opts []option.ClientOption
	if l.credentials != "" {
		opts = append(opts, option.WithAuthCredentialsFile(option.ServiceAccount, l.credentials))
	}
	c, err := bq.NewClient(ctx, l.project, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	dataset := sqltest.Name("sutura_")
	ds := c.Dataset(dataset)
	require.NoError(t, ds.Create(ctx, &bq.DatasetMetadata{Location: l.location, DefaultTableExpiration: 24 * time.Hour}))
	t.Cleanup(func() { _ = ds.DeleteWithContents(context.WithoutCancel(ctx)) })
	files := os.DirFS(sqltest.DemoData)
	for i := range models {
		m := &models[i]
		f, err := sqltest.File(files, m)
		require.NoError(t, err)
		cols, err := sqltest.Header(f, m)
		require.NoError(t, err)
		_ = f.Close()
		var schema bq.Schema
		for _, col := range cols {
			schema = append(schema, &bq.FieldSchema{Name: col.Name, Type: bq.FieldType(bigqueryTypes.Of(col.Type))})
		}
		f, err = sqltest.File(files, m)
		require.NoError(t, err)
		src := bq.NewReaderSource(f.(io.Reader))
		src.SkipLeadingRows = 1
		src.Schema = schema
		job, err := ds.Table(m.BareTable()).LoaderFrom(src).Run(ctx)
		require.NoError(t, err)
		st, err := job.Wait(ctx)
		require.NoError(t, err)
		require.NoError(t, st.Err(), "loading %s", m.Table)
		_ = f.Close()
	}
	return dataset
}

// liveDB opens the demo source on a fresh dataset of the live project.
func liveDB(t *testing.T) *bigquery.DB {
	l := needLive(t)
	models := conformance.DemoDefinitions(source).Models
	for i := range models {
		models[i].Table = models[i].BareTable()
	}
	dataset := l.loadDemo(t, models)
	return open(t, bigquery.Config{Source: source, Project: l.project, Location: l.location, Dataset: dataset,
		CredentialsFile: l.credentials, Models: models})
}

// TestLiveCorpus runs the data-system contract suite (every question of
// the corpus), the federated legs and the anchors on BigQuery.
func TestLiveCorpus(t *testing.T) {
	db := liveDB(t)
	require.NoError(t, db.Ping(context.Background()))
	require.NoError(t, db.Validate(context.Background()))
	conformance.RunSystem(t, db, source)
	conformance.RunLegs(t, db, source)
	b, err := conformance.DemoBundle(source)
	require.NoError(t, err)
	require.Positive(t, sqltest.Anchors(t, b, db.Execute))
	// data_through (docs/contract.md §16): the demo's orders have dates.
	_, ok, err := db.DataThrough(context.Background(), "orders", "order_date")
	require.NoError(t, err)
	require.True(t, ok, "the newest order date is told")
}
