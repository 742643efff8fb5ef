package oracle

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrPrivilegedUser is matched (errors.Is) by CheckSQLPrivileges' error
// when the identity run_sql runs as may do more than run_sql allows.
var ErrPrivilegedUser = errors.New("the database user may do more than run_sql allows")

// privilegedRoles are roles whose holders reach past a read-only
// transaction or over every schema.
var privilegedRoles = []string{"DBA", "IMP_FULL_DATABASE", "EXP_FULL_DATABASE", "DATAPUMP_IMP_FULL_DATABASE",
	"DATAPUMP_EXP_FULL_DATABASE", "EXECUTE_CATALOG_ROLE", "PDB_DBA", "CDB_DBA", "SYSBACKUP", "SYSDG", "SYSKM"}

// privilegedPrivileges are system privileges that reach past the
// read-only transaction or past the grants of single tables, besides
// every ANY privilege (SELECT ANY TABLE, EXECUTE ANY PROCEDURE ...).
var privilegedPrivileges = []string{"ALTER SYSTEM", "ALTER DATABASE", "BECOME USER", "EXEMPT ACCESS POLICY",
	"EXEMPT REDACTION POLICY", "SYSDBA", "SYSOPER", "ADMINISTER DATABASE TRIGGER", "ALTER USER", "DROP USER",
	"CREATE USER", "GRANT ANY PRIVILEGE", "AUDIT SYSTEM"}

// privileged reports the privileges and roles of held that run_sql
// refuses, sorted.
func privileged(privs, roles []string) []string {
	var out []string
	for _, p := range privs {
		p = strings.ToUpper(strings.TrimSpace(p))
		if strings.Contains(" "+p+" ", " ANY ") || slices.Contains(privilegedPrivileges, p) {
			out = append(out, p)
		}
	}
	for _, r := range roles {
		r = strings.ToUpper(strings.TrimSpace(r))
		if slices.Contains(privilegedRoles, r) {
			out = append(out, "role "+r)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// CheckSQLPrivileges reports whether the identity run_sql runs as (the
// service user, or the verification identity through a proxy connection)
// may serve run_sql: its session must hold none of the roles DBA,
// IMP_FULL_DATABASE, EXP_FULL_DATABASE (and their Data Pump forms),
// EXECUTE_CATALOG_ROLE, PDB_DBA, CDB_DBA, nor any ANY system privilege
// (SELECT ANY TABLE, EXECUTE ANY PROCEDURE ...), ALTER SYSTEM, ALTER
// DATABASE, BECOME USER, EXEMPT ACCESS POLICY and the like
// (SESSION_PRIVS, SESSION_ROLES). A read-only transaction stops writes to
// tables, not what a procedure reached through such privileges does. The
// error names what is held and the configuration key; it wraps
// ErrPrivilegedUser, or is an *Error when the database could not be asked.
func (db *DB) CheckSQLPrivileges(ctx context.Context) error {
	client, err := db.ids.Own()
	if err != nil {
		return err
	}
	var privs, roles []string
	err = db.run(ctx, client, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		if privs, err = strings1(ctx, tx, "SELECT privilege FROM session_privs"); err != nil {
			return err
		}
		roles, err = strings1(ctx, tx, "SELECT role FROM session_roles")
		return err
	})
	if err != nil {
		return err
	}
	held := privileged(privs, roles)
	if len(held) == 0 {
		return nil
	}
	src, key := db.cfg.Source, "user"
	if client != "" {
		key = "verification_identity"
	}
	return fmt.Errorf("oracle source %s: the database user of sources.%s.%s holds %s, which reach past a read-only transaction or every schema; "+
		"run_sql needs a user with SELECT on its tables only (change sources.%s.%s, or set tools.run_sql.enabled: false): %w",
		src, src, key, strings.Join(held, ", "), src, key, ErrPrivilegedUser)
}

// strings1 is the one text column of query's rows.
func strings1(ctx context.Context, tx *sql.Tx, query string) ([]string, error) {
	rows, err := tx.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
