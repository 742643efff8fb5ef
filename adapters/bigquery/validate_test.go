package bigquery_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sutura.dev/adapters/bigquery"
	"sutura.dev/adapters/bigquery/bqtest"
	"sutura.dev/adapters/sqlsource/sqltest"
	"sutura.dev/domain"
)

// validConfig is a source on d with one model, orders (shop.orders), whose
// table the double describes with fields.
func validConfig(d *bqtest.Server, fields ...bqtest.Field) bigquery.Config {
	d.Table("proj-sutura.shop.orders", fields...)
	cfg := config(d)
	cfg.Models = []domain.Model{{Name: "orders", Source: source, Table: "orders",
		Columns: sqltest.Cols("order_date", "date", "amount", "integer", "price", "decimal", "paid", "boolean", "status", "text", "at", "timestamp")}}
	return cfg
}

var goodFields = []bqtest.Field{{Name: "order_date", Type: "DATE"}, {Name: "AMOUNT", Type: "INTEGER"},
	{Name: "price", Type: "NUMERIC"}, {Name: "paid", Type: "BOOLEAN"}, {Name: "status", Type: "STRING"}, {Name: "at", Type: "TIMESTAMP"}}

// TestValidate: every model's table must exist (tables.get) with each
// declared column of a fitting type, and a dry run of a read of its
// columns must pass BigQuery's permission checks.
func TestValidate(t *testing.T) {
	with := func(name, typ string) []bqtest.Field {
		out := []bqtest.Field{}
		for _, f := range goodFields {
			if f.Name == name {
				f.Type = typ
			}
			out = append(out, f)
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		fields []bqtest.Field
		table  bool
		probe  *bqtest.APIError
		want   string
	}{
		{name: "fits", fields: goodFields, table: true},
		{name: "integer as NUMERIC(10, 0)", fields: append(with("AMOUNT", "NUMERIC")[:1:1], bqtest.Field{Name: "amount", Type: "NUMERIC", Precision: 10},
			goodFields[2], goodFields[3], goodFields[4], goodFields[5]), table: true},
		{name: "no table", want: "model orders: table orders does not exist"},
		{name: "missing column", fields: goodFields[:5], table: true, want: "model orders: table orders has no column at"},
		{name: "wrong type", fields: with("paid", "STRING"), table: true, want: "column paid is declared boolean but is STRING"},
		{name: "array", fields: append(goodFields[:5:5], bqtest.Field{Name: "at", Type: "TIMESTAMP", Repeated: true}), table: true,
			want: "column at is declared timestamp but is ARRAY<TIMESTAMP>"},
		{name: "no read permission", fields: goodFields, table: true, probe: &bqtest.APIError{Status: 403, Reason: "accessDenied", Message: "denied"},
			want: "model orders: table orders cannot be read by the service account of source " + source},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := bqtest.Start(t)
			cfg := config(d)
			if tc.table {
				cfg = validConfig(d, tc.fields...)
			} else {
				cfg = validConfig(d)
				d = bqtest.Start(t) // a double without the table
				cfg.ClientOptions = d.ClientOptions()
			}
			d.Answer(bqtest.Answer{Match: "LIMIT 0", Error: tc.probe})
			db := open(t, cfg)
			err := db.Validate(context.Background())
			if tc.want == "" {
				require.NoError(t, err)
				jobs := d.Jobs()
				require.Len(t, jobs, 1)
				assert.True(t, jobs[0].DryRun, "the permission check bills nothing")
				assert.Equal(t, "SELECT `order_date`, `amount`, `price`, `paid`, `status`, `at` FROM `proj-sutura`.`shop`.`orders` LIMIT 0", jobs[0].Query)
				return
			}
			assert.ErrorContains(t, err, tc.want)
		})
	}
}

// TestValidateLocation: a table in another location than the source's is
// refused at start naming the location key; the same location in another
// case is the same.
func TestValidateLocation(t *testing.T) {
	for loc, ok := range map[string]bool{"EU": true, "eu": true, "US": false} {
		d := bqtest.Start(t)
		d.TableLocation = loc
		d.Answer(bqtest.Answer{Match: "LIMIT 0"})
		err := open(t, validConfig(d, goodFields...)).Validate(context.Background())
		if ok {
			assert.NoError(t, err, loc)
			continue
		}
		var ce *bigquery.ConfigError
		require.ErrorAs(t, err, &ce, loc)
		key, reason := ce.Setting()
		assert.Equal(t, "location", key)
		assert.Contains(t, reason, "is in US")
	}
}

// TestConfig: New refuses what BigQuery cannot be asked with, naming the
// key.
func TestConfig(t *testing.T) {
	d := bqtest.Start(t)
	for _, tc := range []struct {
		name string
		edit func(*bigquery.Config)
		key  string
	}{
		{"no project", func(c *bigquery.Config) { c.Project = "" }, "project"},
		{"bad project", func(c *bigquery.Config) { c.Project = "a`b" }, "project"},
		{"no location", func(c *bigquery.Config) { c.Location = "" }, "location"},
		{"bad dataset", func(c *bigquery.Config) { c.Dataset = "a.b" }, "dataset"},
		{"dataset too long", func(c *bigquery.Config) { c.Dataset = strings.Repeat("d", 1025) }, "dataset"},
		{"negative bytes", func(c *bigquery.Config) { c.MaximumBytesBilled = -1 }, "maximum_bytes_billed"},
		{"plain endpoint elsewhere", func(c *bigquery.Config) { c.Endpoint = "http://bq.example.com/" }, "endpoint"},
		{"endpoint with credentials", func(c *bigquery.Config) { c.Endpoint = "https://u:p@bq.example.com/" }, "endpoint"},
		{"impersonation", func(c *bigquery.Config) { c.Posture = domain.ImpersonationAtSource }, "posture"},
		{"unreadable credentials", func(c *bigquery.Config) { c.CredentialsFile = t.TempDir() + "/none.json" }, "credentials_file"},
		{"authorized user credentials", func(c *bigquery.Config) {
			c.CredentialsFile = writeFile(t, `{"type":"authorized_user"}`)
		}, "credentials_file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config(d)
			tc.edit(&cfg)
			_, err := bigquery.New(context.Background(), cfg)
			var ce *bigquery.ConfigError
			require.ErrorAs(t, err, &ce)
			key, _ := ce.Setting()
			assert.Equal(t, tc.key, key)
		})
	}
	t.Run("a bare table without a dataset", func(t *testing.T) {
		cfg := config(d)
		cfg.Dataset = ""
		_, err := bigquery.New(context.Background(), cfg)
		assert.ErrorContains(t, err, "names no dataset and the source has none")
	})
	t.Run("a loopback endpoint may be plain, and is called without credentials", func(t *testing.T) {
		cfg := config(d)
		cfg.Endpoint, cfg.ClientOptions = d.Endpoint(), nil
		d.Answer(bqtest.Answer{Match: "SELECT 1"})
		db := open(t, cfg)
		assert.Equal(t, domain.SharedServiceUser, db.Posture())
		require.NoError(t, db.Ping(context.Background()))
		cfg.CredentialsFile = writeFile(t, `{"type":"service_account"}`)
		_, err := bigquery.New(context.Background(), cfg)
		var ce *bigquery.ConfigError
		require.ErrorAs(t, err, &ce)
		key, _ := ce.Setting()
		assert.Equal(t, "credentials_file", key)
	})
}

func writeFile(t *testing.T, content string) string {
	p := t.TempDir() + "/key.json"
	require.NoError(t, writeAll(p, content))
	return p
}
