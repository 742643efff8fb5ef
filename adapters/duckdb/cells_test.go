//go:build cgo

package duckdb_test

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sutura.dev/adapters/duckdb/ducktest"
	"sutura.dev/domain"
)

// TestCells reads one value of every type through run_sql and checks its
// kind and canonical text.
func TestCells(t *testing.T) {
	db := openDemo(t)
	cases := []struct {
		expr string
		kind domain.Kind
		text string
	}{
		{"NULL", domain.KindNull, "null"},
		{"CAST(-7 AS TINYINT)", domain.KindInt, "-7"},
		{"CAST(300 AS SMALLINT)", domain.KindInt, "300"},
		{"CAST(70000 AS INTEGER)", domain.KindInt, "70000"},
		{"CAST(9007199254740993 AS BIGINT)", domain.KindInt, "9007199254740993"},
		{"CAST(200 AS UTINYINT)", domain.KindInt, "200"},
		{"CAST(4000000000 AS UINTEGER)", domain.KindInt, "4000000000"},
		{"CAST(9223372036854775807 AS UBIGINT)", domain.KindInt, "9223372036854775807"},
		{"CAST(18446744073709551615 AS UBIGINT)", domain.KindDecimal, "18446744073709551615"},
		{"CAST(-9223372036854775808 AS HUGEINT)", domain.KindInt, "-9223372036854775808"},
		{"CAST(9223372036854775808 AS HUGEINT)", domain.KindDecimal, "9223372036854775808"},
		{"sum(x) FROM (VALUES (CAST(9223372036854775807 AS BIGINT)), (1)) t(x)", domain.KindDecimal, "9223372036854775808"},
		{"sum(x) FROM (VALUES (CAST(2 AS INTEGER)), (3)) t(x)", domain.KindInt, "5"},
		{"CAST(12.50 AS DECIMAL(10,2))", domain.KindDecimal, "12.5"},
		{"CAST(12.00 AS DECIMAL(10,2))", domain.KindInt, "12"},
		{"CAST(-0.10 AS DECIMAL(10,2))", domain.KindDecimal, "-0.1"},
		{"CAST(12345678901234567890.123456789012345678 AS DECIMAL(38,18))", domain.KindDecimal, "12345678901234567890.123456789012345678"},
		{"sum(x) FROM (VALUES (CAST(0.1 AS DECIMAL(18,2))), (0.2)) t(x)", domain.KindDecimal, "0.3"},
		{"CAST(0.1 AS DECIMAL(38,37))", domain.KindDecimal, "0.1"},
		{"CAST(0.1 AS FLOAT)", domain.KindFloat, "0.1"},
		{"CAST(0.1 AS DOUBLE)", domain.KindFloat, "0.1"},
		{"CAST(1e20 AS DOUBLE) * 10", domain.KindFloat, "1000000000000000000000"},
		{"CAST('NaN' AS DOUBLE)", domain.KindNull, "null"},
		{"CAST('infinity' AS DOUBLE)", domain.KindNull, "null"},
		{"CAST(-0.0 AS DOUBLE)", domain.KindFloat, "0"},
		{"1.0 / 3", domain.KindFloat, "0.3333333333333333"},
		{"true", domain.KindBool, "true"},
		{"'é ü'", domain.KindText, "é ü"},
		{"DATE '2025-03-04'", domain.KindDate, "2025-03-04"},
		{"TIMESTAMP '2025-03-04 05:06:07.25'", domain.KindText, "2025-03-04T05:06:07.25Z"},
		{"TIMESTAMPTZ '2025-03-04 05:06:07+02'", domain.KindText, "2025-03-04T03:06:07Z"},
		{"CAST(TIMESTAMP '2025-03-04 05:06:07.123456789' AS TIMESTAMP_NS)", domain.KindText, "2025-03-04T05:06:07.123456Z"},
		{"DATE 'infinity'", domain.KindText, "infinity"},
		{"DATE '-infinity'", domain.KindText, "-infinity"},
		{"TIMESTAMP 'infinity'", domain.KindText, "infinity"},
		{"TIMESTAMPTZ '-infinity'", domain.KindText, "-infinity"},
		{"DATE '0001-01-01'", domain.KindDate, "0001-01-01"},
		{"TIME '12:34:56.5'", domain.KindText, "12:34:56.5"},
		{"INTERVAL '1 year 2 months 3 days 04:05:06.5'", domain.KindText, "1 year 2 months 3 days 04:05:06.5"},
		{"INTERVAL '0 days'", domain.KindText, "00:00:00"},
		{"CAST('6f1f5a1e-1c3b-4bd9-8c1e-0d8e9b0b6a01' AS UUID)", domain.KindText, "6f1f5a1e-1c3b-4bd9-8c1e-0d8e9b0b6a01"},
		{"CAST('a\\x00\\xFF' AS BLOB)", domain.KindText, `a\x00\xFF`},
		{"[1, 2, NULL]", domain.KindText, `["1","2",null]`},
		{"{'a': 1, 'b': 'x'}", domain.KindText, `{"a":"1","b":"x"}`},
		{"MAP {1: 'one'}", domain.KindText, `[["1","one"]]`},
	}
	for _, tc := range cases {
		t.Run(tc.expr, func(t *testing.T) {
			rs, err := db.RunSQL(context.Background(), "SELECT "+tc.expr, 1)
			require.NoError(t, err)
			require.Len(t, rs.Rows, 1)
			c := rs.Rows[0][0]
			assert.Equal(t, tc.kind, c.Kind())
			assert.Equal(t, tc.text, c.Render())
		})
	}
}

// TestTimestampTimeColumn: a TIMESTAMPTZ time column buckets by its UTC
// date and the range compares with UTC midnights, and a TIMESTAMP one by
// its own wall-clock date, as in the engine, whatever the process's time
// zone. The test runs itself again in a child process whose TZ is far
// from UTC (DuckDB takes its default time zone from it).
func TestTimestampTimeColumn(t *testing.T) {
	if os.Getenv("TZ") != "Pacific/Auckland" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestTimestampTimeColumn$", "-test.count=1")
		cmd.Env = append(os.Environ(), "TZ=Pacific/Auckland")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		require.Contains(t, string(out), "PASS")
		return
	}
	path := ducktest.Build(t, os.DirFS(dataDir), nil, `CREATE TABLE events AS SELECT * FROM (VALUES
  (TIMESTAMPTZ '2025-01-31 23:30:00+00', TIMESTAMP '2025-01-31 23:30:00', 1),
  (TIMESTAMPTZ '2025-02-01 00:30:00+00', TIMESTAMP '2025-02-01 00:30:00', 10),
  (TIMESTAMPTZ '2025-02-01 00:30:00+02', TIMESTAMP '2025-02-01 00:30:00', 100),
  (TIMESTAMPTZ '2025-03-01 00:00:00+00', TIMESTAMP '2025-03-01 00:00:00', 1000)) AS t("at", at_local, n)`)
	for _, column := range []string{"at", "at_local"} {
		models := []domain.Model{{Name: "events", Source: source, Table: "events", Columns: cols(column, "timestamp", "n", "integer")}}
		db := open(t, ducktest.Config(source, path, models))
		require.NoError(t, db.Validate(context.Background()))
		defs := domain.Definitions{
			Models: models,
			Metrics: []domain.Metric{{Name: "total", Model: "events", TimeColumn: column, Description: "total",
				Measure: &domain.Measure{Simple: &domain.Term{Aggregate: domain.Sum, Column: "n"}},
				Grains:  []domain.Grain{domain.Day, domain.Month}}},
		}
		b, err := domain.NewBundle("events", defs, domain.Knowledge{})
		require.NoError(t, err)
		rs, err := db.Execute(context.Background(), compile(t, b,
			`{"metrics":["total"],"grain":"day","range":{"start":"2025-01-31","end":"2025-03-01"}}`))
		require.NoError(t, err)
		want := [][]string{{"2025-01-31", "101"}, {"2025-02-01", "10"}}
		if column == "at_local" {
			want = [][]string{{"2025-01-31", "1"}, {"2025-02-01", "110"}}
		}
		assert.Equal(t, want, rendered(rs), column)
		db.Close()
	}
}
