package clickhouse

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
)

// columnsOf lists a table's columns and their types from system.columns,
// which names every table whatever the user may read.
const columnsOf = `SELECT name, type FROM system.columns WHERE database = {v1:String} AND table = {v2:String}`

// Validate checks, at start, that the source can run what the
// configuration asks of it:
//
//   - under impersonation-at-source, that the server has EXECUTE AS
//     (ClickHouse 25.11 and later); otherwise it refuses naming the
//     posture key: there is no fallback to the service user;
//   - that the service user takes the settings every statement carries
//     (readonly = 1 and max_execution_time: a profile with readonly = 1
//     refuses any setting, readonly = 2 is the read-only profile to give
//     it);
//   - that the table of every model exists and holds each declared column
//     with a type of the declared kind, and that the identity questions
//     run as may read them: the service user, or under
//     impersonation-at-source the verification identity (without one,
//     read permissions are not checked, since they differ per caller).
//
// It is the optional app.Validator ability. The error names the key, or
// the model and the column, or is an *Error when the server cannot be
// asked.
func (db *DB) Validate(ctx context.Context) error {
	ctx, cancel := sqlsource.Budget(ctx, db.cfg.DefaultTimeout)
	defer cancel()
	srv, err := db.Server(ctx)
	if err != nil {
		if hasCode(err, codeReadonly) {
			return configError(db.cfg.Source, "user", "has a profile with readonly = 1, which refuses the settings every statement carries (readonly, max_execution_time): give it readonly = 2")
		}
		return err
	}
	user := ""
	if db.cfg.Posture == domain.ImpersonationAtSource {
		if !srv.ExecuteAs() {
			return configError(db.cfg.Source, "posture",
				"is impersonation-at-source, which needs EXECUTE AS, and ClickHouse "+srv.Version+" has none (25.11 and later have it): use posture shared-service-user or a newer server")
		}
		user = db.cfg.VerificationIdentity
	}
	checkGrants := db.cfg.Posture != domain.ImpersonationAtSource || user != ""
	for i := range db.cfg.Models {
		m := &db.cfg.Models[i]
		database, table := db.cfg.Database, m.BareTable()
		if parts := m.TableParts(); len(parts) == 2 {
			database = parts[0]
		}
		cols, err := db.columns(ctx, srv, database, table)
		if err != nil {
			return err
		}
		if len(cols) == 0 && checkGrants {
			// system.columns hides what the user may not use: tell a table
			// it may not read from one that does not exist.
			if err := db.probe(ctx, srv, m, user); err != nil && !errors.As(err, new(*Error)) {
				return err
			}
		}
		if err := checkModel(m, cols); err != nil {
			return err
		}
		if checkGrants {
			if err := db.probe(ctx, srv, m, user); err != nil {
				return err
			}
		}
	}
	return nil
}

func (db *DB) columns(ctx context.Context, srv *Server, database, table string) (map[string]string, error) {
	cols := map[string]string{}
	_, err := db.run(ctx, bound(srv, columnsOf, database, table), func(rows driver.Rows) error {
		for rows.Next() {
			var name, typ string
			if err := rows.Scan(&name, &typ); err != nil {
				return err
			}
			cols[name] = typ
		}
		return rows.Err()
	})
	return cols, err
}

// probe reads no row of the model's declared columns as user ("" for the
// service user): the server checks every grant a question on the table
// needs.
func (db *DB) probe(ctx context.Context, srv *Server, m *domain.Model, user string) error {
	var sel []string
	for _, c := range m.Columns {
		sel = append(sel, quoteIdent(c.Name))
	}
	if len(sel) == 0 {
		sel = []string{"1"}
	}
	var path []string
	for _, p := range m.TableParts() {
		path = append(path, quoteIdent(p))
	}
	// Identifiers of the catalogue, quoted; no value.
	sql := "SELECT " + strings.Join(sel, ", ") + " FROM " + strings.Join(path, ".") + " LIMIT 0"
	st := statement{sql: sql, user: user}
	if user != "" {
		st.sql = "EXECUTE AS " + quoteIdent(user) + " " + sql
	}
	_, err := db.run(ctx, st, func(rows driver.Rows) error {
		for rows.Next() {
		}
		return rows.Err()
	})
	var re *domain.RefusalError
	switch {
	case errors.As(err, &re) && re.Reason.Code() == domain.SourceRefused:
		return fmt.Errorf("model %s: table %s cannot be read by the identity questions run as", m.Name, m.Table)
	case errors.As(err, &re) && re.Reason.Code() == domain.CredentialUnavailable:
		return configError(db.cfg.Source, "verification_identity", "names a user the service user cannot run statements as (EXECUTE AS)")
	}
	return err
}

func checkModel(m *domain.Model, cols map[string]string) error {
	if len(cols) == 0 {
		return fmt.Errorf("model %s: table %s does not exist", m.Name, m.Table)
	}
	fits := func(want domain.ColumnType, got string) bool { return typeFits(want, baseType(got)) }
	return sqlsource.CheckModel(m, cols, func(name string) string { return name }, fits, func(got string) string { return got }, nil)
}

// typeFits reports whether a ClickHouse column type can stand for a
// declared column type: what the SQL does with it and how its cells render
// depend on the kind, not on the width.
func typeFits(want domain.ColumnType, got string) bool {
	integer := strings.HasPrefix(got, "Int") || strings.HasPrefix(got, "UInt")
	decimal := strings.HasPrefix(got, "Decimal")
	switch want {
	case domain.TypeUnset:
		return true
	case domain.TypeInteger:
		return integer || decimal && (strings.HasSuffix(got, ", 0)") || strings.HasPrefix(got, "Decimal32(0)") ||
			strings.HasPrefix(got, "Decimal64(0)") || strings.HasPrefix(got, "Decimal128(0)"))
	case domain.TypeFloat, domain.TypeDecimal:
		return strings.HasPrefix(got, "Float") || decimal
	case domain.TypeText:
		return got == "String" || strings.HasPrefix(got, "FixedString") || strings.HasPrefix(got, "Enum")
	case domain.TypeBoolean:
		return got == "Bool" || got == "UInt8"
	case domain.TypeDate:
		return got == "Date" || got == "Date32"
	case domain.TypeTimestamp:
		return strings.HasPrefix(got, "DateTime")
	}
	return false
}
