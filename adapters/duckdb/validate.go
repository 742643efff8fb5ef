//go:build cgo

package duckdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	duck "github.com/duckdb/duckdb-go/v2"
	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
)

// Validate checks, at start, that the table (or view) of every model of
// the source exists and holds each declared column with a type of the
// declared kind, and that every text column among them compares and
// orders by its bytes, as in every other source (a column declared with a
// collation such as NOCASE, NOACCENT or a language's would group, filter
// and order differently, and is refused). It is the optional
// app.Validator ability; anchors are re-run by the application through
// Execute. The error names the model and the column, or is an *Error when
// the database cannot be asked.
func (db *DB) Validate(ctx context.Context) error {
	var problem error
	err := db.withConn(ctx, func(ctx context.Context, c *sql.Conn) error {
		for i := range db.cfg.Models {
			m := &db.cfg.Models[i]
			cols, err := readColumns(ctx, c, m)
			if err != nil {
				return err
			}
			if cols == nil {
				problem = fmt.Errorf("model %s: table %s does not exist", m.Name, m.Table)
				return nil
			}
			if problem = checkModel(m, cols); problem != nil {
				return nil
			}
			for _, col := range m.Columns {
				if cols[strings.ToLower(col.Name)] != "VARCHAR" {
					continue
				}
				bad, err := collated(ctx, c, m, col.Name)
				if err != nil {
					return err
				}
				if bad {
					problem = fmt.Errorf("model %s: column %s of table %s has a collation that does not order text by its bytes "+
						"(NOCASE, NOACCENT or a language's): it would group, filter and order differently from every other source; "+
						"read it through a view that drops the collation", m.Name, col.Name, m.Table)
					return nil
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return problem
}

// quotedPath is the model's table path with each segment quoted, as the
// duckdb dialect writes it.
func quotedPath(m *domain.Model) string {
	parts := m.TableParts()
	for i, p := range parts {
		parts[i] = quote(p)
	}
	return strings.Join(parts, ".")
}

// quote quotes an identifier of the catalogue for DuckDB.
func quote(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// readColumns returns the columns of the model's table as the statements
// read it, by name folded to lower case (DuckDB matches names without
// regard to case), with DuckDB's type names; nil when there is no such
// table.
func readColumns(ctx context.Context, c *sql.Conn, m *domain.Model) (map[string]string, error) {
	rows, err := c.QueryContext(ctx, "SELECT * FROM "+quotedPath(m)+" LIMIT 0")
	var de *duck.Error
	if errors.As(err, &de) && de.Type == duck.ErrorTypeCatalog {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	cols := make(map[string]string, len(types))
	for _, t := range types {
		cols[strings.ToLower(t.Name())] = t.DatabaseTypeName()
	}
	return cols, rows.Err()
}

func checkModel(m *domain.Model, cols map[string]string) error {
	return sqlsource.CheckModel(m, cols, strings.ToLower, typeFits, func(got string) string { return got }, enumText)
}

// enumText refuses an ENUM column read as text: it orders by its
// declaration rather than by its text.
func enumText(want domain.ModelColumn, got string) string {
	if got == "ENUM" && (want.Type == domain.TypeText || want.Type == domain.TypeUnset) {
		return "column " + want.Name + " is an ENUM in the database, which orders by its declaration rather than by its text: read it through a view that casts it to VARCHAR"
	}
	return ""
}

var (
	integerTypes = []string{"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT",
		"UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT"}
	timestampTypes = []string{"TIMESTAMP", "TIMESTAMPTZ", "TIMESTAMP WITH TIME ZONE",
		"TIMESTAMP_S", "TIMESTAMP_MS", "TIMESTAMP_NS"}
)

// typeFits reports whether a database column can stand for a declared
// column type: what the SQL does with it and how its cells render depend
// on the kind, not on the width.
func typeFits(want domain.ColumnType, got string) bool {
	numeric := slices.Contains(integerTypes, got) || got == "FLOAT" || got == "DOUBLE" || strings.HasPrefix(got, "DECIMAL")
	switch want {
	case domain.TypeUnset:
		return true
	case domain.TypeInteger:
		return slices.Contains(integerTypes, got) || strings.HasPrefix(got, "DECIMAL") && strings.HasSuffix(got, ",0)")
	case domain.TypeFloat, domain.TypeDecimal:
		return numeric
	case domain.TypeText:
		return got == "VARCHAR"
	case domain.TypeBoolean:
		return got == "BOOLEAN"
	case domain.TypeDate:
		return got == "DATE"
	case domain.TypeTimestamp:
		return slices.Contains(timestampTypes, got)
	}
	return false
}

// collationProbe is a few strings whose order by bytes ("B" < "a" < "f" <
// "é") any collation that ignores case or accents, or follows a
// language, changes.
var collationProbe = []string{"B", "a", "f", "é"}

// collated reports whether a VARCHAR column does not order by its bytes.
// DuckDB does not report a column's collation, so it is observed: the
// probe strings, united with the column (whose collation the union takes
// on) and ordered, must come back in byte order. No row of the table is
// read.
func collated(ctx context.Context, c *sql.Conn, m *domain.Model, column string) (bool, error) {
	values := make([]string, len(collationProbe))
	args := make([]any, len(collationProbe))
	for i, p := range collationProbe {
		values[i] = fmt.Sprintf("($%d)", i+1)
		args[i] = p
	}
	q := "SELECT v FROM (SELECT " + quote(column) + " AS v FROM " + quotedPath(m) + " WHERE false UNION ALL SELECT * FROM (VALUES " +
		strings.Join(values, ", ") + ")) ORDER BY v"
	rows, err := c.QueryContext(ctx, q, args...)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return false, err
		}
		got = append(got, v)
	}
	return !slices.Equal(got, collationProbe), rows.Err()
}
