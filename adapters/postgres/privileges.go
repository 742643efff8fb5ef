package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
	"sutura.dev/domain"
)

// maxMessageBytes bounds one message from the server: a data row is
// refused from its length, before its body is read, when it is longer
// than any row whose cells fit domain.MaxResultBytes once rendered (a
// value's binary form is at most 12 bytes longer than its rendering, with
// its 4-byte length, and a row has at most 1664 columns).
const maxMessageBytes = domain.MaxResultBytes + 64<<10

// serverRoles are PostgreSQL's predefined roles whose members reach past
// the database: programs and files on the server (COPY … TO PROGRAM,
// pg_read_file, lo_export) and other sessions (pg_terminate_backend).
var serverRoles = []string{"pg_execute_server_program", "pg_read_server_files", "pg_write_server_files", "pg_signal_backend"}

// ErrPrivilegedRole is matched (errors.Is) by CheckSQLPrivileges' error
// when the login role may do more than run_sql allows.
var ErrPrivilegedRole = errors.New("the login role may do more than run_sql allows")

// CheckSQLPrivileges reports whether the source's login role (the
// configured user) may serve run_sql: it must not be a superuser, nor a
// member, directly or through other roles and whether it inherits their
// privileges or not, of a superuser role or of pg_execute_server_program,
// pg_read_server_files, pg_write_server_files or pg_signal_backend. A
// read-only transaction stops writes to tables, not what those reach. The
// error names the attribute or the role, and the configuration key of the
// login role; it wraps ErrPrivilegedRole, or is an *Error when the
// database could not be asked.
func (db *DB) CheckSQLPrivileges(ctx context.Context) error {
	var super, viaSuper bool
	var held []string
	// MEMBER is membership whether or not it inherits: a NOINHERIT member
	// has none of a role's privileges until it sets the role, which
	// SET ROLE or set_config('role', …) does inside any query.
	err := db.run(ctx, "", func(ctx context.Context, conn *pgxpool.Conn) error {
		return conn.QueryRow(ctx, `SELECT r.rolsuper, EXISTS (
  SELECT 1 FROM pg_catalog.pg_roles s
  WHERE s.rolsuper AND s.oid <> r.oid AND pg_catalog.pg_has_role(r.oid, s.oid, 'MEMBER')), ARRAY(
  SELECT s.rolname FROM pg_catalog.pg_roles s
  WHERE s.rolname = ANY($1::text[]) AND pg_catalog.pg_has_role(r.oid, s.oid, 'MEMBER')
  ORDER BY s.rolname)
FROM pg_catalog.pg_roles r WHERE r.rolname = session_user`, serverRoles).Scan(&super, &viaSuper, &held)
	})
	if err != nil {
		return err
	}
	var what string
	switch {
	case super:
		what = "is a superuser (rolsuper)"
	case viaSuper:
		// The superuser role is not named: the attribute is what matters.
		what = "can become a superuser (rolsuper) as a member of a superuser role"
	case len(held) > 0:
		what = "is a member of " + strings.Join(held, ", ")
	default:
		return nil
	}
	src := db.cfg.Source
	return fmt.Errorf("postgres source %s: the login role of sources.%s.user %s, which reaches the server's programs, files or other sessions "+
		"past a read-only transaction; run_sql needs a role that is neither a superuser nor a member of a superuser role or of %s "+
		"(change sources.%s.user, or set tools.run_sql.enabled: false): %w",
		src, src, what, strings.Join(serverRoles, ", "), src, ErrPrivilegedRole)
}
