package oracle

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	go_ora "github.com/sijms/go-ora/v2"
	"github.com/sijms/go-ora/v2/network"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
)

// driverNumber is the text go-ora hands database/sql for a NUMBER whose
// value is s: its own Number, encoded as the server sends it and decoded.
func driverNumber(t *testing.T, s string) string {
	t.Helper()
	n, err := go_ora.NewNumberFromString(s)
	require.NoError(t, err)
	out, err := n.String()
	require.NoError(t, err)
	return out
}

// TestCells: the values go-ora returns decode as the engine renders them;
// NUMBER is exact from go-ora's own decimal text.
func TestCells(t *testing.T) {
	at := time.Date(2026, 1, 31, 13, 45, 6, 500_000_000, time.FixedZone("x", 3600))
	midnight := time.Date(2026, 1, 31, 0, 0, 0, 0, time.Local)
	for _, tc := range []struct {
		name string
		v    any
		c    column
		want string
		kind domain.Cell
	}{
		{"null", nil, column{dbType: "NUMBER"}, "null", domain.Null()},
		{"integer NUMBER", driverNumber(t, "1200"), column{dbType: "NUMBER"}, "1200", domain.Int(1200)},
		{"negative fraction", driverNumber(t, "-0.5"), column{dbType: "NUMBER"}, "-0.5", domain.Null()},
		{"integral with a scale", driverNumber(t, "12.00"), column{dbType: "NUMBER"}, "12", domain.Int(12)},
		{"money", driverNumber(t, "19.99"), column{dbType: "NUMBER"}, "19.99", domain.Null()},
		{"wide integer", driverNumber(t, "123456789012345678901234567890"), column{dbType: "NUMBER"}, "123456789012345678901234567890", domain.Null()},
		{"min int64", "-9223372036854775808", column{dbType: "NUMBER"}, "-9223372036854775808", domain.Int(-9223372036854775808)},
		{"boolean true", driverNumber(t, "1"), column{dbType: "NUMBER", declared: domain.TypeBoolean}, "true", domain.Bool(true)},
		{"boolean false", driverNumber(t, "0"), column{dbType: "NUMBER", declared: domain.TypeBoolean}, "false", domain.Bool(false)},
		{"binary double", 1.5, column{dbType: "IBDouble"}, "1.5", domain.Float(1.5)},
		{"binary float", float32(0.1), column{dbType: "IBFloat"}, "0.1", domain.Float(0.1)},
		{"text", "Zoë", column{dbType: "NCHAR"}, "Zoë", domain.Text("Zoë")},
		{"period DATE", midnight, column{dbType: "DATE", declared: domain.TypeDate}, "2026-01-31", domain.Null()},
		{"run_sql DATE at midnight", midnight, column{dbType: "DATE"}, "2026-01-31", domain.Null()},
		{"DATE with a time", at, column{dbType: "DATE"}, "2026-01-31T13:45:06.5Z", domain.Null()},
		{"timestamp declared on a DATE", midnight, column{dbType: "DATE", declared: domain.TypeTimestamp}, "2026-01-31T00:00:00Z", domain.Null()},
		{"TIMESTAMP", at, column{dbType: "TIMESTAMP"}, "2026-01-31T13:45:06.5Z", domain.Null()},
		{"TIMESTAMP WITH TIME ZONE", at, column{dbType: "TIMESTAMPTZ"}, "2026-01-31T12:45:06.5Z", domain.Null()},
		{"RAW", []byte{1, 2}, column{dbType: "RAW"}, "AQI=", domain.Null()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := cell(tc.v, tc.c)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got.Render())
			if tc.kind != domain.Null() {
				assert.Equal(t, tc.kind, got)
			}
		})
	}
	_, err := cell(driverNumber(t, "1")+"x", column{dbType: "NUMBER"})
	assert.Error(t, err)
	_, err = cell(struct{}{}, column{dbType: "OBJECT"})
	assert.Error(t, err)
}

// TestDecimal: NUMBER's text parses to its exact digits.
func TestDecimal(t *testing.T) {
	for s, want := range map[string]string{"0": "0", "12.": "12", ".5": "0.5", "-1.25": "-1.25", "100": "100"} {
		coef, exp, ok := decimal(s)
		require.True(t, ok, s)
		r := new(big.Rat).SetFrac(coef, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-exp)), nil))
		assert.Equal(t, want, strings.TrimSuffix(strings.TrimRight(r.FloatString(10), "0"), "."), s)
	}
	for _, s := range []string{"", "-", ".", "1e5", "1.2.3", "abc"} {
		_, _, ok := decimal(s)
		assert.False(t, ok, s)
	}
}

// TestErrors: go-ora's server errors map to refusals and error kinds; no
// error's text holds the server's message.
func TestErrors(t *testing.T) {
	ora := func(code int) error {
		return &network.OracleError{ErrCode: code, ErrMsg: oraCode(code) + ": secret detail"}
	}
	for _, tc := range []struct {
		name    string
		err     error
		proxied bool
		code    domain.Code
		kind    error
		ora     string
	}{
		{"insufficient privileges", ora(1031), false, domain.SourceRefused, nil, ""},
		{"write in read-only", ora(1456), false, domain.SourceRefused, nil, ""},
		{"memory", ora(4030), false, domain.ResourcesExhausted, nil, ""},
		{"temp space", ora(1652), false, domain.ResourcesExhausted, nil, ""},
		{"cancelled by the server", ora(1013), false, domain.DeadlineExceeded, nil, ""},
		{"proxy not allowed", ora(28150), true, domain.CredentialUnavailable, nil, ""},
		{"proxy client locked", ora(28000), true, domain.CredentialUnavailable, nil, ""},
		{"division by zero", ora(1476), false, "", errDivisionByZero, ""},
		{"no such table", ora(942), false, "", domain.ErrRejected, "ORA-00942"},
		{"invalid identifier", ora(904), false, "", domain.ErrRejected, "ORA-00904"},
		{"bad password", ora(1017), false, "", domain.ErrUnavailable, "ORA-01017"},
		{"service unknown to the listener", ora(12514), false, "", domain.ErrUnavailable, "ORA-12514"},
		{"end of file on the channel", ora(3113), false, "", domain.ErrUnavailable, "ORA-03113"},
		{"connection refused", &netError{}, false, "", domain.ErrUnavailable, ""},
		{"something else", errors.New("secret detail"), false, "", domain.ErrUnavailable, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := classify(context.Background(), "wh", tc.proxied, tc.err)
			require.Error(t, err)
			assert.NotContains(t, err.Error(), "secret")
			if tc.code != "" {
				var re *domain.RefusalError
				require.ErrorAs(t, err, &re)
				assert.Equal(t, tc.code, re.Reason.Code())
				return
			}
			assert.ErrorIs(t, err, tc.kind)
			var e *Error
			if tc.ora != "" {
				require.ErrorAs(t, err, &e)
				assert.Equal(t, tc.ora, e.Code)
				assert.Contains(t, err.Error(), tc.ora)
			}
			if errors.Is(tc.kind, domain.ErrRejected) {
				assert.Contains(t, e.Message, "secret detail", "the message is kept for run_sql's author")
			}
		})
	}
	t.Run("a passed deadline", func(t *testing.T) {
		ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
		defer cancel()
		var re *domain.RefusalError
		require.ErrorAs(t, classify(ctx, "wh", false, ora(1013)), &re)
		assert.Equal(t, domain.DeadlineExceeded, re.Reason.Code())
	})
}

type netError struct{}

func (*netError) Error() string   { return "dial tcp: connection refused" }
func (*netError) Timeout() bool   { return false }
func (*netError) Temporary() bool { return false }

// TestCheckStatement: run_sql sends only one SELECT or WITH query.
func TestCheckStatement(t *testing.T) {
	for _, ok := range []string{
		"SELECT 1 FROM dual",
		"  -- a comment\n select * from t",
		"/* hint */ WITH a AS (SELECT 1 x FROM dual) SELECT x FROM a",
		"SELECT ';' AS semi FROM dual;",
		`SELECT "a;b" FROM t`,
	} {
		assert.Empty(t, checkStatement(ok), ok)
	}
	for _, bad := range []string{
		"DELETE FROM t",
		"BEGIN NULL; END;",
		"WITH FUNCTION f RETURN NUMBER IS BEGIN RETURN 1; END; SELECT f FROM dual",
		"SELECT 1 FROM dual; DROP TABLE t",
		"/* only */ -- comments",
		"CALL p()",
		"LOCK TABLE t IN EXCLUSIVE MODE",
	} {
		assert.NotEmpty(t, checkStatement(bad), bad)
	}
}

// TestPrivileged: the roles and system privileges run_sql refuses.
func TestPrivileged(t *testing.T) {
	assert.Empty(t, privileged([]string{"CREATE SESSION"}, []string{"CONNECT", "SALES_READER"}))
	assert.Equal(t, []string{"EXECUTE ANY PROCEDURE", "SELECT ANY TABLE", "role DBA"},
		privileged([]string{"CREATE SESSION", "SELECT ANY TABLE", "EXECUTE ANY PROCEDURE"}, []string{"DBA"}))
	assert.Equal(t, []string{"ALTER SYSTEM", "BECOME USER"}, privileged([]string{"BECOME USER", "ALTER SYSTEM", "CREATE SESSION"}, nil))
}

// TestConnectionOptions: the URL go-ora is given carries the service, the
// proxy client (CONNECT THROUGH) of an impersonated call and the wallet,
// and go-ora reads them back.
func TestConnectionOptions(t *testing.T) {
	cfg := Config{Source: "wh", Server: sqlsource.Server{Host: "db.example.com", User: "svc", Password: []byte("p@ss/word"),
		Posture: domain.ImpersonationAtSource, Impersonate: map[string]string{"alice": "ALICE"}}, Service: "FREEPDB1"}
	require.NoError(t, cfg.normalize())
	for _, client := range []string{"", "ALICE"} {
		url := go_ora.BuildUrl(cfg.host(), cfg.Port, cfg.Service, cfg.User, string(cfg.Password), cfg.options(client))
		parsed, err := go_ora.ParseConfig(url)
		require.NoError(t, err)
		assert.Equal(t, client, parsed.DatabaseInfo.ProxyClientName)
		assert.Equal(t, "svc", parsed.DatabaseInfo.UserID)
		assert.Equal(t, "p@ss/word", parsed.DatabaseInfo.Password)
		assert.Equal(t, "FREEPDB1", parsed.DatabaseInfo.ServiceName)
		assert.False(t, parsed.SSL, "TLS is the adapter's dialer's, not go-ora's, without a wallet")
	}
	assert.Equal(t, DefaultPort, cfg.Port)
}

// TestDeclaredTypes: the period is a date; a dimension has its column's
// declared type.
func TestDeclaredTypes(t *testing.T) {
	plan := &domain.Plan{
		Columns: []domain.Column{{Name: "paid", Role: domain.RoleDimension}, {Name: "period", Role: domain.RolePeriod}, {Name: "n", Role: domain.RoleMetric}},
		Legs: []domain.Leg{{Base: domain.Table{Alias: "t0", Columns: []domain.ModelColumn{{Name: "is_paid", Type: domain.TypeBoolean}}},
			Dimensions: []domain.DimensionRef{{Name: "paid", Column: domain.ColumnRef{Alias: "t0", Column: "is_paid"}}}}},
	}
	assert.Equal(t, []domain.ColumnType{domain.TypeBoolean, domain.TypeDate, domain.TypeUnset}, declaredTypes(plan))
}

// TestBindsDatesWithoutATimeZone: a date argument is bound as a TIMESTAMP
// without a time zone (go_ora.TimeStamp), not as go-ora's default for a
// time.Time (TIMESTAMP WITH TIME ZONE, which a DATE column would be
// converted to in the session's time zone).
func TestBindsDatesWithoutATimeZone(t *testing.T) {
	day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	got := binds([]any{day, "East"})
	require.Len(t, got, 2)
	assert.Equal(t, go_ora.TimeStamp(day), got[0])
	assert.Equal(t, "East", got[1])
}

// TestThroughStatement: data_through's statement (docs/contract.md §16)
// is one MAX() over the quoted time column of the quoted table, its day.
func TestThroughStatement(t *testing.T) {
	m := &domain.Model{Name: "orders", Table: "sales.orders"}
	assert.Equal(t, `SELECT CAST(TRUNC(MAX("order_date")) AS DATE) FROM "sales"."orders"`, throughStatement(m, "order_date"))
	m = &domain.Model{Name: "orders", Table: "orders"}
	assert.Equal(t, `SELECT CAST(TRUNC(MAX("placed_at")) AS DATE) FROM "orders"`, throughStatement(m, "placed_at"))
}
