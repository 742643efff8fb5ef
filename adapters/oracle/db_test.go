package oracle_test

import (
	"context"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sutura.dev/adapters/oracle"
	"sutura.dev/adapters/sqlsource"
	"sutura.dev/adapters/sqlsource/sqltest"
	"sutura.dev/app/conformance"
	"sutura.dev/domain"
	"sutura.dev/semantic"
)

// TestBindingByOccurrence: the oracle statement numbers its placeholders
// :1, :2 ... once per occurrence, in the order they appear, and the
// arguments follow that order (dates as DATE values at midnight UTC,
// text as text): Oracle binds positional parameters by occurrence, so a
// value used twice is bound twice. No value is written into the SQL.
func TestBindingByOccurrence(t *testing.T) {
	b := demoBundle(t)
	for _, q := range []string{
		`{"metrics":["net_sales"],"grain":"month","range":{"start":"2026-01-01","end":"2026-04-01"},"dimensions":["area"],"filters":[{"op":"eq","dimension":"area","value":"East"}]}`,
		`{"metrics":["net_sales","units_sold"],"grain":"week","range":{"start":"2025-12-01","end":"2026-01-05"},"filters":[{"op":"in","dimension":"channel","values":["online","store"]}]}`,
	} {
		plan := sqltest.Compile(t, b, domain.LocalOperator, q)
		query, args, err := sqlsource.Render(context.Background(), "oracle", source, plan, semantic.Oracle)
		require.NoError(t, err)
		seen := regexp.MustCompile(`:(\d+)`).FindAllStringSubmatch(query, -1)
		require.Len(t, seen, len(args), q)
		for i, m := range seen {
			assert.Equal(t, strconv.Itoa(i+1), m[1], "placeholder %d of %s", i+1, q)
		}
		for _, a := range args {
			switch v := a.(type) {
			case time.Time:
				assert.Equal(t, time.UTC, v.Location())
				assert.Zero(t, v.Hour()+v.Minute()+v.Second())
			case string:
				assert.NotContains(t, query, "'"+v+"'", "the value %q is bound, not written", v)
			default:
				t.Errorf("argument of type %T", a)
			}
		}
		assert.Contains(t, query, "FETCH FIRST "+strconv.Itoa(plan.RowCap+1)+" ROWS ONLY")
	}
}

// TestRefusedBeforeSending: what the adapter refuses itself never reaches
// a server (the source points at a closed port, so anything sent would
// fail as unavailable instead).
func TestRefusedBeforeSending(t *testing.T) {
	plan := sqltest.Compile(t, demoBundle(t), domain.LocalOperator,
		`{"metrics":["net_sales"],"grain":"month","range":{"start":"2026-01-01","end":"2026-04-01"}}`)
	t.Run("a subject with no database user", func(t *testing.T) {
		cfg := nowhere()
		cfg.Posture = domain.ImpersonationAtSource
		cfg.Impersonate = map[string]string{"alice": "ALICE"}
		db := open(t, cfg)
		_, err := db.ExecuteAs(context.Background(), domain.Principal{Subject: "bob"}, plan)
		assert.Equal(t, domain.CredentialUnavailable, sqltest.RefusalCode(err))
		_, err = db.Execute(context.Background(), plan)
		assert.Equal(t, domain.CredentialUnavailable, sqltest.RefusalCode(err), "no verification identity")
	})
	t.Run("run_sql that is not one query", func(t *testing.T) {
		db := open(t, nowhere())
		for _, st := range []string{"DELETE FROM t", "BEGIN NULL; END;", "SELECT 1 FROM dual; DROP TABLE t"} {
			_, err := db.RunSQL(context.Background(), st, 10)
			assert.Equal(t, domain.SourceRefused, sqltest.RefusalCode(err), st)
		}
		_, err := db.RunSQL(context.Background(), " ", 10)
		assert.ErrorIs(t, err, oracle.ErrEmptyStatement)
	})
	t.Run("a plan of another source", func(t *testing.T) {
		cfg := nowhere()
		cfg.Source = "other"
		_, err := open(t, cfg).Execute(context.Background(), plan)
		assert.ErrorContains(t, err, "the plan reads source "+source)
	})
	t.Run("a server that is not there", func(t *testing.T) {
		cfg := nowhere()
		cfg.ConnectTimeout = time.Second
		db := open(t, cfg)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err := db.Ping(ctx)
		var e *oracle.Error
		require.ErrorAs(t, err, &e)
		assert.ErrorIs(t, err, domain.ErrUnavailable)
	})
}

// TestConfig: New refuses what the driver cannot be given, naming the
// key.
func TestConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*oracle.Config)
		key  string
	}{
		{"no service", func(c *oracle.Config) { c.Service = "" }, "service"},
		{"bad service", func(c *oracle.Config) { c.Service = "a b" }, "service"},
		{"database", func(c *oracle.Config) { c.Database = "x" }, "database"},
		{"no user", func(c *oracle.Config) { c.User = "" }, "user"},
		{"quote in user", func(c *oracle.Config) { c.User = `a"b` }, "user"},
		{"plaintext elsewhere", func(c *oracle.Config) { c.Host = "db.example.com" }, "transport_mode"},
		{"wallet in plaintext", func(c *oracle.Config) { c.WalletDir = t.TempDir() }, "wallet_dir"},
		{"wallet and ca_file", func(c *oracle.Config) {
			c.TransportMode, c.WalletDir, c.CAFile = sqlsource.Verified, t.TempDir(), "/ca.pem"
		}, "wallet_dir"},
		{"wallet not a directory", func(c *oracle.Config) {
			c.TransportMode, c.WalletDir = sqlsource.Verified, t.TempDir()+"/none"
		}, "wallet_dir"},
		{"impersonate in shared", func(c *oracle.Config) { c.Impersonate = map[string]string{"a": "A"} }, "impersonate"},
		{"bad proxy client", func(c *oracle.Config) {
			c.Posture, c.Impersonate = domain.ImpersonationAtSource, map[string]string{"a": "A[B]"}
		}, "impersonate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := nowhere()
			tc.edit(&cfg)
			_, err := oracle.New(context.Background(), cfg)
			var ce *oracle.ConfigError
			require.ErrorAs(t, err, &ce)
			key, _ := ce.Setting()
			assert.Equal(t, tc.key, key)
		})
	}
	t.Run("a socket", func(t *testing.T) {
		cfg := nowhere()
		cfg.Host, cfg.Port, cfg.UnixSocket, cfg.TransportMode = "", 0, "/var/run/oracle.sock", ""
		db := open(t, cfg)
		assert.Equal(t, domain.SharedServiceUser, db.Posture())
	})
	t.Run("a table of three parts", func(t *testing.T) {
		cfg := nowhere()
		cfg.Models = []domain.Model{{Name: "m", Source: source, Table: "a.b.c"}}
		_, err := oracle.New(context.Background(), cfg)
		assert.ErrorContains(t, err, "must be T or SCHEMA.T")
	})
}

// TestTracedWithoutAServer: under a traced call run_sql's check reads the
// text that would be sent, comment included (several statements are
// still refused, a trailing line comment is still one query); and
// data_through asks nothing for a model of another source and is the
// server's failure, not a date, when it cannot be reached.
func TestTracedWithoutAServer(t *testing.T) {
	cfg := nowhere()
	cfg.Models = conformance.DemoDefinitions(source).Models
	db := open(t, cfg)
	ctx := domain.WithTraceParent(context.Background(), "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	_, err := db.RunSQL(ctx, "SELECT 1 FROM dual; DROP TABLE t;", 10)
	assert.Equal(t, domain.SourceRefused, sqltest.RefusalCode(err))
	_, err = db.RunSQL(ctx, "SELECT 1 FROM dual -- one", 10)
	assert.ErrorIs(t, err, domain.ErrUnavailable, "checked as one query, then the server cannot be reached")

	_, ok, err := db.DataThrough(ctx, "no_such_model", "order_date")
	require.NoError(t, err)
	assert.False(t, ok)
	_, ok, err = db.DataThrough(ctx, "orders", "order_date")
	assert.ErrorIs(t, err, domain.ErrUnavailable)
	assert.False(t, ok)
}
