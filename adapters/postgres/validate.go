package postgres

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
)

// columnsOf lists the columns of the relation a model's table path names
// (database $1, schema $2, both possibly empty, and name $3; without a
// schema, resolved by search_path as the statement resolves it), with their
// base type's name and category and whether the current role may read them
// (USAGE on the schema and SELECT on the column). It reads pg_catalog,
// which needs no privilege, rather than information_schema or to_regclass,
// which hide or refuse what the role cannot use, so that "not readable"
// is not reported as "does not exist".
const columnsOf = `SELECT a.attname, bt.typname, bt.typcategory,
  has_schema_privilege(n.oid, 'USAGE') AND has_column_privilege(c.oid, a.attnum, 'SELECT')
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
JOIN pg_catalog.pg_type bt ON bt.oid = CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE t.oid END
WHERE c.relname = $3 AND c.relkind IN ('r', 'v', 'm', 'f', 'p')
  AND ($1 = '' OR $1 = current_database())
  AND CASE WHEN $2 = '' THEN pg_catalog.pg_table_is_visible(c.oid) ELSE n.nspname = $2 END`

// Validate checks, at start, that the table of every model of the source
// exists and holds each declared column with a type of the declared kind,
// and that the identity questions run as may read them: the service user,
// or under impersonation-at-source the verification identity (without
// one, read permissions are not checked, since they differ per caller).
// It is the optional app.Validator ability. The error names the model and
// the column, or is an *Error when the database cannot be asked.
func (db *DB) Validate(ctx context.Context) error {
	role := ""
	if db.cfg.Posture == domain.ImpersonationAtSource {
		role = db.cfg.VerificationIdentity
	}
	checkGrants := db.cfg.Posture != domain.ImpersonationAtSource || role != ""
	var problem error
	err := db.run(ctx, role, func(ctx context.Context, conn *pgxpool.Conn) error {
		for i := range db.cfg.Models {
			m := &db.cfg.Models[i]
			cols, err := readColumns(ctx, conn, m)
			if err != nil {
				return err
			}
			if problem = checkModel(m, cols, checkGrants); problem != nil {
				return nil
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return problem
}

type dbColumn struct {
	typ, category string
	readable      bool
}

func readColumns(ctx context.Context, conn *pgxpool.Conn, m *domain.Model) (map[string]dbColumn, error) {
	// t, schema.t or database.schema.t, as the statement reads the path.
	parts := append([]string{"", ""}, m.TableParts()...)
	parts = parts[len(parts)-3:]
	rows, err := conn.Query(ctx, columnsOf, parts[0], parts[1], parts[2])
	if err != nil {
		return nil, err
	}
	cols := map[string]dbColumn{}
	var name string
	var c dbColumn
	_, err = pgx.ForEachRow(rows, []any{&name, &c.typ, &c.category, &c.readable}, func() error {
		cols[name] = c
		return nil
	})
	return cols, err
}

func checkModel(m *domain.Model, cols map[string]dbColumn, checkGrants bool) error {
	if len(cols) == 0 {
		return fmt.Errorf("model %s: table %s does not exist (or is not on the search path)", m.Name, m.Table)
	}
	var grants func(domain.ModelColumn, dbColumn) string
	if checkGrants {
		grants = func(want domain.ModelColumn, got dbColumn) string {
			if got.readable {
				return ""
			}
			return fmt.Sprintf("column %s of table %s cannot be read by the identity questions run as", want.Name, m.Table)
		}
	}
	return sqlsource.CheckModel(m, cols, same, typeFits, func(c dbColumn) string { return c.typ }, grants)
}

// same is a column's name as the catalogue of the database spells it.
func same(name string) string { return name }

// typeFits reports whether a database column can stand for a declared
// column type: what the SQL does with it and how its cells render depend
// on the kind, not on the width.
func typeFits(want domain.ColumnType, got dbColumn) bool {
	switch want {
	case domain.TypeUnset:
		return true
	case domain.TypeInteger:
		return slices.Contains([]string{"int2", "int4", "int8", "numeric"}, got.typ)
	case domain.TypeFloat, domain.TypeDecimal:
		return got.category == "N"
	case domain.TypeText:
		return got.category == "S"
	case domain.TypeBoolean:
		return got.typ == "bool"
	case domain.TypeDate:
		return got.typ == "date"
	case domain.TypeTimestamp:
		return got.typ == "timestamp" || got.typ == "timestamptz"
	}
	return false
}
