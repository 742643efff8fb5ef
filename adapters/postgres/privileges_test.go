package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	postgres "sutura.dev/adapters/postgres"
	"sutura.dev/domain"
)

// loginRole creates a login role of the run for one test, with what the
// statements after its name (%[1]s) grant it, and drops it (and the roles
// the statements named %[2]s) when the test ends.
func (f *fixture) loginRole(t *testing.T, name, grants string) postgres.Config {
	t.Helper()
	role, helper := f.role(name), f.role(name+"_via")
	f.exec(t, fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD '%s'; GRANT CONNECT ON DATABASE %s TO %s; GRANT SELECT ON ALL TABLES IN SCHEMA public TO %s;",
		role, f.pw, f.db, role, role))
	if grants != "" {
		f.exec(t, fmt.Sprintf(grants, role, helper))
	}
	t.Cleanup(func() {
		ctx := context.Background()
		c, err := f.connect(ctx, f.db)
		if err != nil {
			return
		}
		defer c.Close(ctx)
		_, _ = c.Exec(ctx, fmt.Sprintf("DROP OWNED BY %[1]s; DROP ROLE IF EXISTS %[1]s; DROP ROLE IF EXISTS %[2]s", role, helper))
	})
	cfg := f.config()
	cfg.User = role
	return cfg
}

// TestCheckSQLPrivileges: a run_sql source's login role may be neither a
// superuser nor a member (directly, or through another role, inheriting or
// not) of a predefined role that reaches the server's programs, files or
// other sessions. The refusal names the attribute or the role and the key,
// never the password.
func TestCheckSQLPrivileges(t *testing.T) {
	f := needDB(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name, grants string
		names        []string // what the refusal names; none: accepted
	}{
		{"plain", "", nil},
		{"super", "ALTER ROLE %[1]s SUPERUSER", []string{"superuser (rolsuper)"}},
		{"program", "GRANT pg_execute_server_program TO %[1]s", []string{"pg_execute_server_program"}},
		{"files", "GRANT pg_read_server_files, pg_write_server_files TO %[1]s", []string{"pg_read_server_files, pg_write_server_files"}},
		{"signal", "CREATE ROLE %[2]s NOLOGIN; GRANT pg_signal_backend TO %[2]s; ALTER ROLE %[1]s NOINHERIT; GRANT %[2]s TO %[1]s",
			[]string{"pg_signal_backend"}},
		{"other", "CREATE ROLE %[2]s NOLOGIN; GRANT %[2]s TO %[1]s; GRANT pg_read_all_stats TO %[1]s", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := open(t, f.loginRole(t, "chk_"+tc.name, tc.grants))
			err := db.CheckSQLPrivileges(ctx)
			if tc.names == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, postgres.ErrPrivilegedRole)
			for _, n := range tc.names {
				assert.Contains(t, err.Error(), n)
			}
			assert.Contains(t, err.Error(), "sources."+source+".user")
			assert.NotContains(t, err.Error(), f.pw)
		})
	}

	// A database that cannot be reached is not a verdict on the role.
	cfg := f.config()
	cfg.Port = 1
	err := open(t, cfg).CheckSQLPrivileges(ctx)
	require.ErrorIs(t, err, domain.ErrUnavailable)
	assert.NotErrorIs(t, err, postgres.ErrPrivilegedRole)
}

// TestRunSQLCannotReachTheServer: for a login role that passes
// CheckSQLPrivileges, what a read-only transaction would still allow a
// privileged one (a program, a server file, another session) is refused.
func TestRunSQLCannotReachTheServer(t *testing.T) {
	f := needDB(t)
	ctx := context.Background()
	db := open(t, f.config())
	require.NoError(t, db.CheckSQLPrivileges(ctx))
	admin, err := f.connect(ctx, f.db)
	require.NoError(t, err)
	defer admin.Close(ctx)
	var adminPID int32
	require.NoError(t, admin.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&adminPID))
	out := fmt.Sprintf("%s/sutura-run-sql-%s", os.TempDir(), f.suffix)

	for _, stmt := range []string{
		"COPY (SELECT 1) TO PROGRAM 'touch " + out + "'",
		"COPY (SELECT 1) TO '" + out + "'",
		"SELECT pg_read_file('PG_VERSION')",
		"SELECT pg_read_binary_file('PG_VERSION')",
		"SELECT pg_ls_dir('.')",
		"SELECT lo_export(lo_from_bytea(0, 'x'), '" + out + "')",
		"SELECT lo_import('/etc/hostname')",
		fmt.Sprintf("SELECT pg_terminate_backend(%d)", adminPID),
		fmt.Sprintf("SELECT pg_cancel_backend(%d)", adminPID),
	} {
		_, err := db.RunSQL(ctx, stmt, 10)
		require.Error(t, err, stmt)
		if code := refusalCode(err); code != "" {
			assert.Contains(t, []domain.Code{domain.SourceRefused}, code, stmt)
			continue
		}
		e, ok := errorsAs[*postgres.Error](err)
		require.True(t, ok, "%s: %v", stmt, err)
		assert.ErrorIs(t, e, domain.ErrRejected, "%s: %v", stmt, err)
	}
	_, err = os.Stat(out)
	assert.True(t, errors.Is(err, os.ErrNotExist), "no file was written on the server")
	require.NoError(t, admin.Ping(ctx), "the other session is alive")
}

// TestRunSQLSelfTerminationIsNotRetried: a statement whose connection
// ends while it runs runs once; the failure is not taken for a database
// restart worth a second run (it may be the statement's own doing, by a
// function not yet refused by name).
func TestRunSQLSelfTerminationIsNotRetried(t *testing.T) {
	f := needDB(t)
	ctx := context.Background()
	db := open(t, f.config())
	admin, err := f.connect(ctx, f.db)
	require.NoError(t, err)
	defer admin.Close(ctx)

	marker := "self_terminating_" + f.suffix
	var (
		mu   sync.Mutex
		pids = map[int32]bool{}
		stop = make(chan struct{})
		done = make(chan struct{})
	)
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
			rows, err := admin.Query(ctx, "SELECT pid FROM pg_stat_activity WHERE query LIKE '%' || $1 || '%' AND pid <> pg_backend_pid()", marker)
			if err != nil {
				continue
			}
			var seen []int32
			for rows.Next() {
				var pid int32
				if rows.Scan(&pid) == nil {
					seen = append(seen, pid)
				}
			}
			rows.Close()
			for _, pid := range seen {
				mu.Lock()
				first := !pids[pid]
				pids[pid] = true
				mu.Unlock()
				if first {
					// As an administrator or a restart would, mid-statement.
					_, _ = admin.Exec(ctx, "SELECT pg_terminate_backend($1)", pid)
				}
			}
		}
	}()
	_, err = db.RunSQL(ctx, "SELECT pg_sleep(0.5) AS "+marker, 1)
	time.Sleep(700 * time.Millisecond) // a second run would be seen sleeping
	close(stop)
	<-done
	require.Error(t, err)
	assert.ErrorIs(t, err, domain.ErrUnavailable, "the connection ended")
	mu.Lock()
	defer mu.Unlock()
	assert.Len(t, pids, 1, "the statement ran on exactly one backend")

	rs, err := db.RunSQL(ctx, "SELECT 1", 1)
	require.NoError(t, err, "the source serves on")
	assert.Equal(t, [][]string{{"1"}}, rendered(rs))
}

// TestRunSQLSettingsEndWithTheStatement: run_sql cannot change the
// read-only mode, the session's identity or its settings: SET, RESET,
// DISCARD and set_config (however it is quoted or qualified) are refused,
// and the next call sees the session as it was.
func TestRunSQLSettingsEndWithTheStatement(t *testing.T) {
	f := needDB(t)
	ctx := context.Background()
	cfg := f.config()
	cfg.MaxConns = 1
	db := open(t, cfg)
	reader := f.role("reader")
	// Every way of changing them is refused before it is sent, or failed
	// by the server; what is left is the same for the next call.
	for _, stmt := range []string{
		"SELECT set_config('transaction_read_only', 'off', false)",
		"SET TRANSACTION READ WRITE",
		"SELECT set_config('role', '" + f.role("online") + "', false)",
		"SELECT set_config('role', '" + f.admin.User + "', true)",
		"SELECT \"set_config\"('session_authorization', '" + f.admin.User + "', false)",
		"SET SESSION AUTHORIZATION " + f.admin.User,
		"SELECT pg_catalog.set_config('statement_timeout', '0', false)",
		"SET LOCAL statement_timeout = 0",
		"RESET ALL",
		"DISCARD ALL",
	} {
		_, err := db.RunSQL(ctx, stmt, 1)
		require.Error(t, err, stmt)
		if code := refusalCode(err); code != "" {
			assert.Equal(t, domain.SourceRefused, code, "%s: %v", stmt, err)
		} else {
			e, ok := errorsAs[*postgres.Error](err)
			require.True(t, ok, "%s: %v", stmt, err)
			assert.ErrorIs(t, e, domain.ErrRejected, stmt)
		}
		rs, err := db.RunSQL(ctx, `SELECT current_user, session_user, current_setting('transaction_read_only'),
  current_setting('search_path'), current_setting('statement_timeout') <> '0'`, 1)
		require.NoError(t, err)
		assert.Equal(t, [][]string{{reader, reader, "on", `"$user", public`, "true"}}, rendered(rs), "after %s", stmt)
	}

	// The deadline holds for a statement that would run past it.
	tctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := db.RunSQL(tctx, "SELECT pg_sleep(30)", 1)
	assert.Equal(t, domain.DeadlineExceeded, refusalCode(err), "%v", err)
	assert.Less(t, time.Since(start), 10*time.Second)
}

// TestRunSQLRefusesAWideRow: a row wider than the result bound is refused
// as result_too_large from its length, without the row being read into
// memory; a row that fits the message bound but not the result bound once
// rendered is refused too. The source serves on.
func TestRunSQLRefusesAWideRow(t *testing.T) {
	f := needDB(t)
	ctx := context.Background()
	db := open(t, f.config())
	_, err := db.RunSQL(ctx, "SELECT 1", 1) // a connection of the pool exists
	require.NoError(t, err)

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = db.RunSQL(ctx, "SELECT repeat('x', 64 * 1024 * 1024) AS wide", 1)
	runtime.ReadMemStats(&after)
	require.Equal(t, domain.ResultTooLarge, refusalCode(err), "%v", err)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("a 64 MiB row cost %d KiB of allocations", allocated>>10)
	assert.Less(t, allocated, uint64(16<<20), "the 64 MiB row was not buffered")

	_, err = db.RunSQL(ctx, fmt.Sprintf("SELECT repeat('x', %d) AS wide", domain.MaxResultBytes+1), 1)
	require.Equal(t, domain.ResultTooLarge, refusalCode(err), "%v", err)
	_, err = db.RunSQL(ctx, fmt.Sprintf("SELECT repeat('x', %d) AS a, repeat('y', %d) AS b FROM generate_series(1, 3)",
		domain.MaxResultBytes/4, domain.MaxResultBytes/4), 10)
	require.Equal(t, domain.ResultTooLarge, refusalCode(err), "rows that fit one by one but not together")

	rs, err := db.RunSQL(ctx, "SELECT length(repeat('x', 1024 * 1024))", 1)
	require.NoError(t, err)
	assert.Equal(t, [][]string{{"1048576"}}, rendered(rs))
	rs, err = db.RunSQL(ctx, fmt.Sprintf("SELECT repeat('x', %d) AS wide", domain.MaxResultBytes-1), 1)
	require.NoError(t, err, "a row just under the bound is an answer")
	assert.Len(t, rs.Rows[0][0].Render(), domain.MaxResultBytes-1)
	assert.True(t, strings.HasPrefix(rs.Rows[0][0].Render(), "xxx"))
}
