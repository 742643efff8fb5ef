//go:build cgo

package duckdb_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sutura.dev/adapters/duckdb/ducktest"
	"sutura.dev/domain"
)

// validateSetup adds the tables and views the validation cases read.
var validateSetup = []string{
	`CREATE SCHEMA crm`,
	`CREATE TABLE crm.customers AS SELECT * FROM customers`,
	`CREATE VIEW paid_orders AS SELECT order_id, order_date, channel FROM orders WHERE is_paid`,
	`CREATE TABLE typed (i TINYINT, u UBIGINT, h HUGEINT, d0 DECIMAL(18,0), d2 DECIMAL(18,2), f FLOAT, x DOUBLE,
		v VARCHAR, b BOOLEAN, dt DATE, ts TIMESTAMP, tz TIMESTAMPTZ, tn TIMESTAMP_NS)`,
	`CREATE TYPE mood AS ENUM ('sad', 'happy')`,
	`CREATE TABLE moods (m mood)`,
	`CREATE TABLE nocase (name VARCHAR COLLATE NOCASE)`,
	`CREATE TABLE noaccent (name VARCHAR COLLATE NOACCENT)`,
	`CREATE TABLE german (name VARCHAR COLLATE de)`,
	`CREATE VIEW nocase_view AS SELECT name FROM nocase`,
	`CREATE VIEW nocase_dropped AS SELECT CAST(name AS VARCHAR) COLLATE "binary" AS name FROM nocase`,
}

// TestValidate checks tables, views, schemas, declared columns and their
// kinds, and refuses what would answer differently from every other
// source, naming the model and the column.
func TestValidate(t *testing.T) {
	path := demoFile(t, validateSetup...)
	model := func(table string, columns ...string) []domain.Model {
		return []domain.Model{{Name: "m", Source: source, Table: table, Columns: cols(columns...)}}
	}
	cases := []struct {
		name   string
		models []domain.Model
		want   string // "" passes
	}{
		{"the demo", demoModels(), ""},
		{"a schema", model("crm.customers", "customer_id", "integer", "segment", "text"), ""},
		{"a view", model("paid_orders", "order_id", "integer", "order_date", "date", "channel", "text"), ""},
		{"names fold to lower case, as DuckDB resolves them", model("Paid_Orders", "ORDER_ID", "integer"), ""},
		{"undeclared types", model("typed", "v", "", "i", ""), ""},
		{"every kind", model("typed", "i", "integer", "u", "integer", "h", "integer", "d0", "integer", "d2", "decimal",
			"f", "float", "x", "float", "v", "text", "b", "boolean", "dt", "date", "ts", "timestamp", "tz", "timestamp", "tn", "timestamp"), ""},
		{"a collation dropped in a view", model("nocase_dropped", "name", "text"), ""},
		{"no table", model("nowhere", "x", "integer"), "model m: table nowhere does not exist"},
		{"no schema", model("sales.customers", "customer_id", "integer"), "model m: table sales.customers does not exist"},
		{"no column", model("orders", "order_id", "integer", "nope", "text"), "model m: table orders has no column nope"},
		{"a real declared integer", model("typed", "d2", "integer"), "column d2 is declared integer but is DECIMAL(18,2)"},
		{"text declared integer", model("typed", "v", "integer"), "column v is declared integer but is VARCHAR"},
		{"a date declared timestamp", model("typed", "dt", "timestamp"), "column dt is declared timestamp but is DATE"},
		{"a timestamp declared date", model("typed", "ts", "date"), "column ts is declared date but is TIMESTAMP"},
		{"a number declared text", model("typed", "i", "text"), "column i is declared text but is TINYINT"},
		{"text declared boolean", model("typed", "v", "boolean"), "column v is declared boolean but is VARCHAR"},
		{"an enum", model("moods", "m", "text"), "model m: column m is an ENUM"},
		{"nocase", model("nocase", "name", "text"), "model m: column name of table nocase has a collation"},
		{"noaccent", model("noaccent", "name", "text"), "column name of table noaccent has a collation"},
		{"a language", model("german", "name", "text"), "column name of table german has a collation"},
		{"through a view", model("nocase_view", "name", ""), "column name of table nocase_view has a collation"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			db := open(t, ducktest.Config(source, path, tc.models))
			err := db.Validate(context.Background())
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
