package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	postgres "sutura.dev/adapters/postgres"
	"sutura.dev/domain"
)

// TestEscapesOfIssue28: the run_sql escapes found from outside (issue 28,
// items 1 and 4). A login role that can become a superuser by membership
// (NOINHERIT, through a role of its own) is refused at start; and, were
// such a role configured anyway, none of the statements that reached the
// server's programs, its files or other sessions runs: a DO block, SET
// ROLE through set_config with query_to_xml, COPY … TO PROGRAM, CALL, and
// ending or cancelling another session of the same service user.
func TestEscapesOfIssue28(t *testing.T) {
	f := needDB(t)
	ctx := context.Background()
	super := f.role("esc_via")
	proc := "noop_" + f.suffix
	f.exec(t, "CREATE PROCEDURE "+proc+"() LANGUAGE sql AS $$ SELECT 1 $$; GRANT EXECUTE ON PROCEDURE "+proc+"() TO PUBLIC")
	cfg := f.loginRole(t, "esc", "CREATE ROLE %[2]s NOLOGIN SUPERUSER; ALTER ROLE %[1]s NOINHERIT; GRANT %[2]s TO %[1]s")
	db := open(t, cfg)
	err := db.CheckSQLPrivileges(ctx)
	if assert.ErrorIs(t, err, postgres.ErrPrivilegedRole) {
		assert.Contains(t, err.Error(), "superuser (rolsuper)")
		assert.NotContains(t, err.Error(), super, "the refusal names the attribute, not the role")
		assert.NotContains(t, err.Error(), f.pw)
	}

	// Another session of the same login role, as a certified question's
	// connection would be.
	other, err := f.connectAs(ctx, cfg.User)
	require.NoError(t, err)
	defer other.Close(ctx)
	var otherPID int32
	require.NoError(t, other.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&otherPID))

	out := fmt.Sprintf("%s/sutura-escape-%s", os.TempDir(), f.suffix)
	t.Cleanup(func() { _ = os.Remove(out) })
	for _, stmt := range []string{
		fmt.Sprintf(`DO $$BEGIN EXECUTE 'SET ROLE %s'; EXECUTE 'COPY (select 1) TO PROGRAM ''touch %s'''; END$$`, super, out),
		fmt.Sprintf(`SELECT set_config('role', '%s', true), query_to_xml('select pg_read_file(''PG_VERSION'')', true, false, '')`, super),
		fmt.Sprintf(`select (set_config('role', '%s', true) is not null) and query_to_xml('copy (select 1) to program ''touch %s''', true, false, '') is not null`, super, out),
		fmt.Sprintf(`COPY (SELECT 1) TO PROGRAM 'touch %s'`, out),
		"CALL " + proc + "()",
		fmt.Sprintf("SELECT pg_terminate_backend(%d)", otherPID),
		fmt.Sprintf("SELECT pg_cancel_backend(%d)", otherPID),
		"SELECT pg_catalog.\"pg_terminate_backend\"(pid) FROM pg_stat_activity WHERE usename = current_user AND pid <> pg_backend_pid()",
		"/* a /* nested */ comment */ SELECT pg_reload_conf()",
		"SELECT ts_stat('select to_tsvector(pg_read_file(''PG_VERSION''))')",
		"SET ROLE " + super,
		"SELECT 1; SET ROLE " + super,
		"EXPLAIN ANALYZE SELECT pg_terminate_backend(1)",
		`SELECT U&"\0070g_terminate_backend"(1)`,
		// pg_settings' update rule calls set_config: not a query, and not
		// allowed in a WITH either.
		fmt.Sprintf("UPDATE pg_settings SET setting = '%s' WHERE name = 'role'", super),
		fmt.Sprintf("WITH u AS (UPDATE pg_settings SET setting = '%s' WHERE name = 'role' RETURNING 1) SELECT * FROM u", super),
	} {
		start := time.Now()
		_, err := db.RunSQL(ctx, stmt, 10)
		assert.Error(t, err, "it ran: %s", stmt)
		if code := refusalCode(err); code != "" {
			assert.Equal(t, domain.SourceRefused, code, "%s: %v", stmt, err)
		} else {
			// Two statements, or a rule a WITH cannot hold: the server
			// refuses them; nothing ran.
			e, ok := errorsAs[*postgres.Error](err)
			if assert.True(t, ok, "%s: %v", stmt, err) {
				assert.Contains(t, []string{"42601", "0A000"}, e.Code, stmt)
			}
		}
		assert.Less(t, time.Since(start), 5*time.Second)
	}
	_, err = os.Stat(out)
	assert.True(t, errors.Is(err, os.ErrNotExist), "no program ran on the server")
	assert.NoError(t, other.Ping(ctx), "the other session of the same user is alive")

	// What run_sql is for still runs, as this role too, and as itself.
	rs, err := db.RunSQL(ctx, "  (SELECT count(*), current_user FROM regions) -- a comment", 1)
	require.NoError(t, err)
	assert.Equal(t, [][]string{{"4", cfg.User}}, rendered(rs))
}

// TestWrongPasswordIsASignInFailure (issue 28): a password or user the
// database refuses is the source being unavailable, with an operator's
// sentence that says the sign-in was refused, not that the database
// cannot be reached; it names the key, never the password.
func TestWrongPasswordIsASignInFailure(t *testing.T) {
	f := needDB(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		edit func(*postgres.Config)
	}{
		{"password", func(c *postgres.Config) { c.Password = []byte("not-" + f.pw) }},
		{"user", func(c *postgres.Config) { c.User = f.role("nobody_at_all") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := f.config()
			tc.edit(&cfg)
			db := open(t, cfg)
			for _, err := range []error{db.Ping(ctx), db.Validate(ctx), db.CheckSQLPrivileges(ctx)} {
				require.ErrorIs(t, err, domain.ErrUnavailable)
				assert.Contains(t, err.Error(), "refused the sign-in of the service user")
				assert.Contains(t, err.Error(), "sources."+source+".user")
				assert.NotContains(t, err.Error(), "cannot be reached")
				assert.NotContains(t, err.Error(), f.pw)
			}
		})
	}
}
