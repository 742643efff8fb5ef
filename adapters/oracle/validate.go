package oracle

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
)

// columnsOf lists a table's columns from ALL_TAB_COLUMNS, which shows the
// tables the identity may use; :1 is the owner (the current schema when
// the model names none), :2 the table.
const columnsOf = `SELECT column_name, data_type, data_scale FROM all_tab_columns
WHERE owner = COALESCE(:1, SYS_CONTEXT('USERENV', 'CURRENT_SCHEMA')) AND table_name = :2`

// oracleColumn is a column as ALL_TAB_COLUMNS describes it.
type oracleColumn struct {
	dataType string
	scale    sql.NullInt64
}

// Validate checks, at start, that the table of every model exists for the
// identity questions run as (the service user, or under
// impersonation-at-source the verification identity through a proxy
// connection; without one, the service user) and holds each declared
// column with a type of the declared kind (ALL_TAB_COLUMNS), and that it
// may read them (a SELECT of the declared columns that reads no row).
// Oracle names are case-sensitive as the dialect quotes them: a table
// created without quotes is ORDERS, and the model says so. It is the
// optional app.Validator ability. The error names the model and the
// column, or is an *Error or a refusal when the server cannot be asked.
func (db *DB) Validate(ctx context.Context) error {
	client := db.cfg.VerificationIdentity
	for i := range db.cfg.Models {
		m := &db.cfg.Models[i]
		if err := db.validateModel(ctx, client, m); err != nil {
			return err
		}
	}
	return nil
}

func (db *DB) validateModel(ctx context.Context, client string, m *domain.Model) error {
	parts := m.TableParts()
	var owner any // NULL: the current schema
	if len(parts) == 2 {
		owner = parts[0]
	}
	cols := sqlsource.TableColumns[oracleColumn]{}
	err := db.run(ctx, client, func(ctx context.Context, tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, columnsOf, owner, m.BareTable())
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var name string
			var c oracleColumn
			if err := rows.Scan(&name, &c.dataType, &c.scale); err != nil {
				return err
			}
			cols[name] = c
		}
		return rows.Err()
	})
	if err != nil {
		return err
	}
	if len(cols) == 0 {
		return fmt.Errorf("model %s: table %s does not exist or cannot be read by the identity questions run as", m.Name, m.Table)
	}
	if err := checkModel(m, cols); err != nil {
		return err
	}
	return db.probe(ctx, client, m)
}

// probe reads no row of m's declared columns: the server checks every
// privilege a question on the table needs.
func (db *DB) probe(ctx context.Context, client string, m *domain.Model) error {
	sel := make([]string, 0, len(m.Columns))
	for _, c := range m.Columns {
		sel = append(sel, quoteIdent(c.Name))
	}
	if len(sel) == 0 {
		sel = []string{"1"}
	}
	path := make([]string, 0, 2)
	for _, p := range m.TableParts() {
		path = append(path, quoteIdent(p))
	}
	// Identifiers of the catalogue, quoted (normalize refused a quote in
	// none of them: the compiler's identifiers are checked); no value.
	query := "SELECT " + strings.Join(sel, ", ") + " FROM " + strings.Join(path, ".") + " WHERE 1 = 0"
	err := db.run(ctx, client, func(ctx context.Context, tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, query)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
		}
		return rows.Err()
	})
	var re *domain.RefusalError
	var e *Error
	switch {
	case errors.As(err, &re) && re.Reason.Code() == domain.SourceRefused,
		errors.As(err, &e) && e.Code == "ORA-00942":
		return fmt.Errorf("model %s: table %s cannot be read by the identity questions run as", m.Name, m.Table)
	case errors.As(err, &re) && re.Reason.Code() == domain.CredentialUnavailable:
		return configError(db.cfg.Source, "verification_identity", "names a user the service user cannot connect through (ALTER USER ... GRANT CONNECT THROUGH)")
	}
	return err
}

func checkModel(m *domain.Model, cols sqlsource.TableColumns[oracleColumn]) error {
	same := func(name string) string { return name }
	typeName := func(c oracleColumn) string { return c.dataType }
	return sqlsource.CheckModel(m, cols, same, typeFits, typeName, nil)
}

// typeFits reports whether an Oracle column can stand for a declared
// column type: what the SQL does with it and how its cells render depend
// on the kind, not on the width.
func typeFits(want domain.ColumnType, c oracleColumn) bool {
	t := c.dataType
	number := t == "NUMBER" || t == "FLOAT"
	switch want {
	case domain.TypeUnset:
		return true
	case domain.TypeInteger:
		return t == "NUMBER" && (!c.scale.Valid || c.scale.Int64 == 0)
	case domain.TypeFloat, domain.TypeDecimal:
		return number || t == "BINARY_DOUBLE" || t == "BINARY_FLOAT"
	case domain.TypeText:
		return t == "VARCHAR2" || t == "NVARCHAR2" || t == "CHAR" || t == "NCHAR" || t == "CLOB" || t == "NCLOB"
	case domain.TypeBoolean:
		// The dialect compares booleans with = 1: NUMBER(1) is the usual
		// column, BOOLEAN (23ai) compares so too.
		return t == "NUMBER" || t == "BOOLEAN"
	case domain.TypeDate:
		return t == "DATE"
	case domain.TypeTimestamp:
		return t == "DATE" || strings.HasPrefix(t, "TIMESTAMP")
	}
	return false
}
