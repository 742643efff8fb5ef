package oracle_test

import (
	"context"
	"database/sql"
	"encoding/csv"
	"errors"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	go_ora "github.com/sijms/go-ora/v2"
	"github.com/stretchr/testify/require"
	"sutura.dev/adapters/oracle"
	"sutura.dev/adapters/sqlsource"
	"sutura.dev/adapters/sqlsource/sqltest"
	"sutura.dev/app/conformance"
	"sutura.dev/domain"
	"sutura.dev/testtier"
)

// The oracle tier: the data-system contract suite, the federated legs and
// the anchors against the Oracle server SUTURA_ORACLE_URL names
// (oracle://user:password@host:port/service; the user needs CREATE TABLE
// in its own schema, where the demo tables are made and dropped again).
// Plaintext is used to a loopback host, verified TLS otherwise. Without
// it the tests say NOT RUN: oracle (…); CI does not require it
// (testtier/tiers.tsv).

// oracleTypes are Oracle's names of the declared column types.
var oracleTypes = sqltest.Types{Integer: "NUMBER(19)", Float: "BINARY_DOUBLE", Decimal: "NUMBER", Boolean: "NUMBER(1)",
	Date: "DATE", Timestamp: "TIMESTAMP", Text: "VARCHAR2(4000)"}

// liveConfig is the source SUTURA_ORACLE_URL names, with models.
func liveConfig(t *testing.T, models []domain.Model) (oracle.Config, string) {
	t.Helper()
	raw := os.Getenv("SUTURA_ORACLE_URL")
	if raw == "" {
		testtier.Need(t, "oracle", "SUTURA_ORACLE_URL unset")
	}
	u, err := url.Parse(raw)
	require.NoError(t, err, "SUTURA_ORACLE_URL")
	port, _ := strconv.Atoi(u.Port())
	pass, _ := u.User.Password()
	mode := sqlsource.Verified
	if sqlsource.Loopback(u.Hostname()) {
		mode = sqlsource.Plaintext
	}
	return oracle.Config{Source: source, Service: strings.TrimPrefix(u.Path, "/"), Models: models,
		Server: sqlsource.Server{Host: u.Hostname(), Port: port, User: u.User.Username(), Password: []byte(pass), TransportMode: mode}}, raw
}

// loadDemo creates the demo tables in the user's schema from the demo CSV
// files (quoted lower-case names, as the models spell them) and drops them
// when t ends.
func loadDemo(t *testing.T, raw string, models []domain.Model) {
	t.Helper()
	ctx := context.Background()
	db, err := sql.Open("oracle", raw)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	_, err = db.ExecContext(ctx, "ALTER SESSION SET NLS_NUMERIC_CHARACTERS = '.,'")
	require.NoError(t, err)
	files := os.DirFS(sqltest.DemoData)
	for i := range models {
		m := &models[i]
		f, err := sqltest.File(files, m)
		require.NoError(t, err)
		records, err := csv.NewReader(f).ReadAll()
		_ = f.Close()
		require.NoError(t, err)
		cols := sqltest.Declared(records[0], m)
		table := `"` + m.BareTable() + `"`
		_, _ = db.ExecContext(ctx, "DROP TABLE "+table+" PURGE")
		var defs, binds []string
		for j, c := range cols {
			defs = append(defs, `"`+c.Name+`" `+oracleTypes.Of(c.Type))
			binds = append(binds, ":"+strconv.Itoa(j+1))
		}
		_, err = db.ExecContext(ctx, "CREATE TABLE "+table+" ("+strings.Join(defs, ", ")+")")
		require.NoError(t, err)
		t.Cleanup(func() { _, _ = db.ExecContext(context.WithoutCancel(ctx), "DROP TABLE "+table+" PURGE") })
		insert := "INSERT INTO " + table + " VALUES (" + strings.Join(binds, ", ") + ")"
		for _, rec := range records[1:] {
			args := make([]any, len(rec))
			for j, v := range rec {
				args[j], err = liveValue(v, cols[j].Type)
				require.NoError(t, err, "%s line value %q", m.Table, v)
			}
			_, err = db.ExecContext(ctx, insert, args...)
			require.NoError(t, err)
		}
	}
}

// liveValue is the bind value of the CSV field v of a column declared t.
func liveValue(v string, t domain.ColumnType) (any, error) {
	if v == "" {
		return nil, nil
	}
	switch t {
	case domain.TypeInteger:
		return strconv.ParseInt(v, 10, 64)
	case domain.TypeFloat:
		return strconv.ParseFloat(v, 64)
	case domain.TypeDecimal:
		return go_ora.NewNumberFromString(v)
	case domain.TypeBoolean:
		b, err := strconv.ParseBool(v)
		if b {
			return 1, err
		}
		return 0, err
	case domain.TypeDate:
		return time.Parse(time.DateOnly, v)
	case domain.TypeTimestamp:
		ts, err := time.Parse(time.RFC3339Nano, v)
		return ts.UTC(), err
	case domain.TypeUnset, domain.TypeText:
		return v, nil
	}
	return nil, errors.New("an unknown declared type")
}

// TestLiveCorpus runs the data-system contract suite (every question of
// the corpus), the federated legs, the anchors, and run_sql on Oracle.
func TestLiveCorpus(t *testing.T) {
	models := conformance.DemoDefinitions(source).Models
	for i := range models {
		models[i].Table = models[i].BareTable()
	}
	cfg, raw := liveConfig(t, models)
	loadDemo(t, raw, models)
	db := open(t, cfg)
	ctx := context.Background()
	require.NoError(t, db.Ping(ctx))
	require.NoError(t, db.Validate(ctx))
	conformance.RunSystem(t, db, source)
	conformance.RunLegs(t, db, source)
	b, err := conformance.DemoBundle(source)
	require.NoError(t, err)
	require.Positive(t, sqltest.Anchors(t, b, db.Execute))
	// data_through (docs/contract.md §16): the demo's orders have dates.
	_, ok, err := db.DataThrough(context.Background(), "orders", "order_date")
	require.NoError(t, err)
	require.True(t, ok, "the newest order date is told")
	rs, err := db.RunSQL(ctx, "SELECT 1 AS one FROM dual", 10)
	require.NoError(t, err)
	require.Equal(t, [][]string{{"1"}}, sqltest.Rendered(rs))
	_, err = db.RunSQL(ctx, `SELECT * FROM "orders" FOR UPDATE`, 10)
	require.Equal(t, domain.SourceRefused, sqltest.RefusalCode(err), "the read-only transaction refuses a lock")
}
