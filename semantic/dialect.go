package semantic

import (
	"errors"
	"strconv"
	"strings"

	"sutura.dev/domain"
)

// Dialect is a SQL dialect Render writes.
type Dialect string

// The dialects Render writes. Each is golden-tested, and each has an
// adapter that runs its statements (adapters/<dialect>).
//
// What the oracle and bigquery dialects write, by the vendors' references
// (checked against them; no server of either runs in this project's tests):
//
//   - oracle (Oracle Database SQL Language Reference): TRUNC (date) with
//     the format models IW, MM, Q and YYYY ("ROUND and TRUNC Date
//     Functions"), CAST to BINARY_DOUBLE (CAST; "Numeric Data Types"),
//     NLSSORT with NLS_SORT=BINARY (NLSSORT), NULLIF, CASE, COUNT, SUM, AVG,
//     MIN, MAX (aggregate functions), ORDER BY … NULLS LAST and the
//     row_limiting_clause FETCH FIRST n ROWS ONLY (SELECT), table aliases
//     without AS (SELECT, t_alias), positional binds :n ("Placeholders";
//     bound by occurrence).
//   - bigquery (GoogleSQL reference): DATE_TRUNC with ISOWEEK, MONTH,
//     QUARTER and YEAR (date functions), CAST to DATE and FLOAT64
//     (conversion rules), NULLIF, CASE (conditional expressions), COUNT,
//     SUM, AVG, MIN, MAX (aggregate functions), ORDER BY … NULLS LAST and
//     LIMIT (query syntax), named query parameters @name (query
//     parameters), backquoted identifiers and project.dataset.table paths
//     (lexical structure).
const (
	Postgres   Dialect = "postgres"
	Oracle     Dialect = "oracle"
	DuckDB     Dialect = "duckdb"
	ClickHouse Dialect = "clickhouse"
	BigQuery   Dialect = "bigquery"
)

// Dialects lists every dialect.
func Dialects() []Dialect { return []Dialect{Postgres, Oracle, DuckDB, ClickHouse, BigQuery} }

// ErrUnknownDialect is returned for a dialect name Render does not write.
var ErrUnknownDialect = errors.New("unknown SQL dialect (want postgres, oracle, duckdb, clickhouse or bigquery)")

// ParseDialect returns the dialect named s (as written in configuration).
func ParseDialect(s string) (Dialect, error) {
	for _, d := range Dialects() {
		if string(d) == s {
			return d, nil
		}
	}
	return "", ErrUnknownDialect
}

// String returns the dialect's name.
func (d Dialect) String() string { return string(d) }

func (d Dialect) valid() bool {
	_, err := ParseDialect(string(d))
	return err == nil
}

// quote quotes one identifier (already checked to be [A-Za-z_][A-Za-z0-9_]*,
// so it holds no quote character).
func (d Dialect) quote(s string) string {
	switch d {
	case ClickHouse, BigQuery:
		return "`" + s + "`"
	}
	return `"` + s + `"`
}

// placeholder is the text of the n-th (1-based) parameter in the SQL.
func (d Dialect) placeholder(n int, k ParamKind) string {
	i := strconv.Itoa(n)
	switch d {
	case Oracle:
		return ":" + i
	case BigQuery:
		return "@p" + i
	case ClickHouse:
		t := "String"
		if k == ParamDate {
			t = "Date"
		}
		return "{p" + i + ":" + t + "}"
	}
	return "$" + i
}

// toDouble casts e to the dialect's 64-bit float type.
func (d Dialect) toDouble(e frag) frag {
	switch d {
	case ClickHouse:
		// toFloat64 keeps nulls; CAST to a non-Nullable type would fail on one.
		return cat("toFloat64(", e, ")")
	case Oracle:
		return cat("CAST(", e, " AS BINARY_DOUBLE)")
	case DuckDB:
		return cat("CAST(", e, " AS DOUBLE)")
	case BigQuery:
		return cat("CAST(", e, " AS FLOAT64)")
	}
	return cat("CAST(", e, " AS double precision)")
}

// day is the time column as a date.
func (d Dialect) day(col frag, t domain.ColumnType) frag {
	switch d {
	case Oracle:
		return cat("TRUNC(", col, ")")
	case ClickHouse:
		if t == domain.TypeDate {
			return col
		}
		return cat("toDate(", col, ")")
	}
	if t == domain.TypeDate {
		return col
	}
	if d == BigQuery {
		return cat("CAST(", col, " AS DATE)")
	}
	return cat("CAST(", col, " AS date)")
}

// bucket is the first day of the grain's period holding the time column.
func (d Dialect) bucket(g domain.Grain, col frag, t domain.ColumnType) frag {
	if d == Oracle {
		fmts := map[domain.Grain]string{domain.Week: "IW", domain.Month: "MM", domain.Quarter: "Q", domain.Year: "YYYY"}
		if g == domain.Day {
			return d.day(col, t)
		}
		return cat("TRUNC(", col, ", '"+fmts[g]+"')")
	}
	day := d.day(col, t)
	if g == domain.Day {
		return day
	}
	switch d {
	case ClickHouse:
		fn := map[domain.Grain]string{domain.Week: "toMonday", domain.Month: "toStartOfMonth", domain.Quarter: "toStartOfQuarter", domain.Year: "toStartOfYear"}
		return cat(fn[g]+"(", day, ")")
	case BigQuery:
		part := map[domain.Grain]string{domain.Week: "ISOWEEK", domain.Month: "MONTH", domain.Quarter: "QUARTER", domain.Year: "YEAR"}
		return cat("DATE_TRUNC(", day, ", "+part[g]+")")
	case DuckDB:
		return cat("CAST(date_trunc('"+g.String()+"', ", day, ") AS DATE)")
	}
	// Postgres: truncating a timestamp without time zone keeps the session
	// time zone out of it; ISO weeks start on Monday.
	return cat("CAST(date_trunc('"+g.String()+"', CAST(", day, " AS timestamp)) AS date)")
}

// rangeColumn is what the range bounds compare with: the time column
// itself, except on bigquery, which does not compare a timestamp with a
// date.
func (d Dialect) rangeColumn(col frag, t domain.ColumnType) frag {
	if d == BigQuery {
		return d.day(col, t)
	}
	return col
}

// isTrue is the predicate "the boolean column is true" (null is not).
func (d Dialect) isTrue(col frag) frag {
	switch d {
	case Oracle, ClickHouse:
		// Oracle stores booleans as NUMBER(1); ClickHouse Bool is UInt8.
		return cat(col, " = 1")
	}
	return cat(col, " IS TRUE")
}

// orderText wraps a text key so it orders by its bytes.
func (d Dialect) orderText(col frag) frag {
	switch d {
	case Postgres:
		return cat(col, ` COLLATE "C"`)
	case Oracle:
		return cat("NLSSORT(", col, ", 'NLS_SORT=BINARY')")
	}
	return col
}

// divideOrFail renders num / den as a float, failing the statement when den is
// zero (zero_denominator: fails).
func (d Dialect) divideOrFail(num, den frag) frag {
	switch d {
	case DuckDB:
		// DuckDB yields null for a division by zero; raise it explicitly.
		return cat("CASE WHEN ", den, " = 0 THEN error('division by zero') ELSE ",
			d.toDouble(num), " / ", d.toDouble(den), " END")
	case Oracle:
		// BINARY_DOUBLE division by zero yields infinity; NUMBER raises.
		return cat("CASE WHEN ", den, " = 0 THEN 1 / 0 ELSE ",
			d.toDouble(num), " / ", d.toDouble(den), " END")
	case ClickHouse:
		// Float division by zero yields infinity; throwIf raises.
		return cat(d.toDouble(num), " / ", d.toDouble(den), " + throwIf(coalesce(", den, ", 1) = 0)")
	}
	// Postgres and BigQuery raise on a float division by zero.
	return cat(d.toDouble(num), " / ", d.toDouble(den))
}

// limit is the clause that keeps the first n rows.
func (d Dialect) limit(n int) string {
	if d == Oracle {
		return "FETCH FIRST " + strconv.Itoa(n) + " ROWS ONLY"
	}
	return "LIMIT " + strconv.Itoa(n)
}

// tableAs renders a table with its alias.
func (d Dialect) tableAs(t domain.Table) string {
	parts := make([]string, len(t.Path))
	for i, p := range t.Path {
		parts[i] = d.quote(p)
	}
	if d == Oracle {
		// Oracle does not accept AS before a table alias.
		return strings.Join(parts, ".") + " " + d.quote(t.Alias)
	}
	return strings.Join(parts, ".") + " AS " + d.quote(t.Alias)
}
