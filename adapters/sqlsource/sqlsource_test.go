package sqlsource_test

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
)

func TestNetworkCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    sqlsource.Network
		want string // "" accepts; else the error's text holds it
		mode sqlsource.TransportMode
	}{
		{"loopback plaintext", sqlsource.Network{Server: sqlsource.Server{Host: "127.0.0.1", TransportMode: sqlsource.Plaintext}}, "", sqlsource.Plaintext},
		{"verified by default", sqlsource.Network{Server: sqlsource.Server{Host: "db.example"}}, "", sqlsource.Verified},
		{"bracketed ipv6", sqlsource.Network{Server: sqlsource.Server{Host: "[::1]", TransportMode: sqlsource.Plaintext}}, "", sqlsource.Plaintext},
		{"plaintext off loopback", sqlsource.Network{Server: sqlsource.Server{Host: "10.0.0.5", TransportMode: sqlsource.Plaintext}},
			"transport_mode may be plaintext only to a loopback address or localhost", ""},
		{"plaintext off loopback, sockets", sqlsource.Network{Server: sqlsource.Server{Host: "10.0.0.5", TransportMode: sqlsource.Plaintext}, Socket: true},
			"transport_mode may be plaintext only to a loopback address, localhost or a unix socket", ""},
		{"socket is plaintext", sqlsource.Network{Socket: true, UnixSocket: "/run/pg"}, "", sqlsource.Plaintext},
		{"socket with TLS", sqlsource.Network{Server: sqlsource.Server{TransportMode: sqlsource.Verified}, Socket: true, UnixSocket: "/run/pg"}, "transport_mode must be plaintext over a unix socket", ""},
		{"both", sqlsource.Network{Server: sqlsource.Server{Host: "h"}, Socket: true, UnixSocket: "/run/pg"}, "unix_socket is set together with host", ""},
		{"neither, sockets", sqlsource.Network{Socket: true}, "host is required (or unix_socket)", ""},
		{"neither", sqlsource.Network{Server: sqlsource.Server{Host: " "}}, "host is required", ""},
		{"scheme", sqlsource.Network{Server: sqlsource.Server{Host: "https://db"}}, "host must be a host name", ""},
		{"port", sqlsource.Network{Server: sqlsource.Server{Host: "db", Port: 70000}}, "port must be between 1 and 65535", ""},
		{"unknown mode", sqlsource.Network{Server: sqlsource.Server{Host: "db", TransportMode: "tls"}}, "transport_mode must be plaintext, verified or mutual", ""},
		{"ca with plaintext", sqlsource.Network{Server: sqlsource.Server{Host: "localhost", TransportMode: sqlsource.Plaintext, CAFile: "ca.pem"}},
			"ca_file applies only with transport_mode verified or mutual", ""},
		{"cert without mutual", sqlsource.Network{Server: sqlsource.Server{Host: "db", CertFile: "c.pem"}}, "cert_file applies only with transport_mode mutual", ""},
		{"mutual without key", sqlsource.Network{Server: sqlsource.Server{Host: "db", TransportMode: sqlsource.Mutual, CertFile: "c.pem"}}, "key_file is required", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := tc.n
			n.System, n.Source = "pg", "s"
			if n.User == "" {
				n.User = "u"
			}
			err := n.Check()
			if tc.want != "" {
				var ce *sqlsource.ConfigError
				require.ErrorAs(t, err, &ce)
				assert.Contains(t, err.Error(), "pg source s: "+tc.want)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.mode, n.TransportMode)
			assert.NotContains(t, n.Host, "[")
		})
	}
}

func TestTLSConfig(t *testing.T) {
	n := sqlsource.Network{System: "pg", Source: "s", Server: sqlsource.Server{Host: "db.example", User: "u"}}
	require.NoError(t, n.Check())
	tc, err := n.TLSConfig()
	require.NoError(t, err)
	assert.Equal(t, "db.example", tc.ServerName)
	n.ServerName = "other.example"
	tc, err = n.TLSConfig()
	require.NoError(t, err)
	assert.Equal(t, "other.example", tc.ServerName)
	n.CAFile = t.TempDir() + "/missing.pem"
	_, err = n.TLSConfig()
	assert.EqualError(t, err, "pg source s: ca_file cannot be read")
	p := sqlsource.Network{Server: sqlsource.Server{Host: "localhost", TransportMode: sqlsource.Plaintext}}
	tc, err = p.TLSConfig()
	require.NoError(t, err)
	assert.Nil(t, tc)
}

func TestIdentities(t *testing.T) {
	valid := func(s string) bool { return s != "" && s != "bad" }
	id := sqlsource.Identities{System: "pg", Source: "s", Noun: "database role"}
	require.NoError(t, id.Check(valid))
	assert.Equal(t, domain.SharedServiceUser, id.Posture)
	own, err := id.Own()
	require.NoError(t, err)
	assert.Empty(t, own)
	of, err := id.Of(domain.Principal{Subject: "ann"})
	require.NoError(t, err)
	assert.Empty(t, of, "the service user")

	imp := sqlsource.Identities{System: "pg", Source: "s", Noun: "database role", Posture: domain.ImpersonationAtSource,
		Impersonate: map[string]string{"ann": "r_ann"}}
	require.NoError(t, imp.Check(valid))
	of, err = imp.Of(domain.Principal{Subject: "ann"})
	require.NoError(t, err)
	assert.Equal(t, "r_ann", of)
	_, err = imp.Of(domain.Principal{Subject: "bob"})
	assert.Equal(t, domain.CredentialUnavailable, code(err))
	assert.Contains(t, err.Error(), "there is no database role for this caller at source s")
	_, err = imp.Own()
	assert.Equal(t, domain.CredentialUnavailable, code(err), "no verification identity")
	imp.VerificationIdentity = "r_verify"
	own, err = imp.Own()
	require.NoError(t, err)
	assert.Equal(t, "r_verify", own)

	for _, tc := range []struct {
		name string
		id   sqlsource.Identities
		want string
	}{
		{"unknown posture", sqlsource.Identities{Posture: "other"}, "posture must be"},
		{"impersonate without the posture", sqlsource.Identities{Impersonate: map[string]string{"a": "b"}}, "impersonate applies only"},
		{"verification identity without the posture", sqlsource.Identities{VerificationIdentity: "v"}, "verification_identity applies only"},
		{"empty subject", sqlsource.Identities{Posture: domain.ImpersonationAtSource, Impersonate: map[string]string{" ": "b"}}, "has an empty subject"},
		{"invalid identity", sqlsource.Identities{Posture: domain.ImpersonationAtSource, Impersonate: map[string]string{"a": "bad"}},
			"impersonate maps a subject to an empty or invalid database role"},
		{"invalid verification identity", sqlsource.Identities{Posture: domain.ImpersonationAtSource, VerificationIdentity: "bad"},
			"verification_identity is not a valid database role name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := tc.id
			id.System, id.Source, id.Noun = "pg", "s", "database role"
			err := id.Check(valid)
			var ce *sqlsource.ConfigError
			require.ErrorAs(t, err, &ce)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func code(err error) domain.Code {
	var re *domain.RefusalError
	if errors.As(err, &re) {
		return re.Reason.Code()
	}
	return ""
}

func TestStatement(t *testing.T) {
	_, err := sqlsource.Statement(" \n", 5)
	assert.ErrorIs(t, err, sqlsource.ErrEmptyStatement)
	for in, want := range map[int]int{5: 5, 0: domain.MaxRowCap, -1: domain.MaxRowCap, domain.MaxRowCap + 1: domain.MaxRowCap} {
		got, err := sqlsource.Statement("select 1", in)
		require.NoError(t, err)
		assert.Equal(t, want, got, in)
	}
}

// rows is a result of integer rows; fail, when set, is the error of
// scanning row failAt.
type rows struct {
	data   [][]int64
	i      int
	fail   error
	failAt int
	err    error
}

func (r *rows) Next() bool { r.i++; return r.i <= len(r.data) }
func (r *rows) Err() error { return r.err }
func (r *rows) Scan(row []domain.Cell) error {
	if r.fail != nil && r.i == r.failAt {
		return r.fail
	}
	for j, v := range r.data[r.i-1] {
		row[j] = domain.Int(v)
	}
	return nil
}

func TestRead(t *testing.T) {
	cols, err := sqlsource.Columns(nil, []string{"a", "b"})
	require.NoError(t, err)
	assert.Equal(t, []domain.Column{{Name: "a"}, {Name: "b"}}, cols)
	_, err = sqlsource.Columns([]domain.Column{{Name: "a"}}, []string{"a", "b"})
	assert.EqualError(t, err, "the statement returns 2 columns, the plan has 1")

	data := [][]int64{{1, 10}, {2, 20}, {3, 30}}
	rs, err := sqlsource.Read(&rows{data: data}, cols, 3, 0, sqlsource.DetailStatementRows)
	require.NoError(t, err)
	assert.Len(t, rs.Rows, 3)

	_, err = sqlsource.Read(&rows{data: data}, cols, 2, 0, sqlsource.DetailStatementRows)
	assert.Equal(t, domain.ResultTooLarge, code(err), "one row past the cap is refused, never truncated")
	assert.Contains(t, err.Error(), "more than 2 rows")

	_, err = sqlsource.Read(&rows{data: data}, cols, 3, 8, sqlsource.DetailStatementRows)
	assert.Equal(t, domain.ResultTooLarge, code(err), "past the byte bound")
	assert.Contains(t, err.Error(), "larger than 8 bytes")

	boom := errors.New("boom")
	_, err = sqlsource.Read(&rows{data: data, fail: boom, failAt: 2}, cols, 3, 0, "")
	assert.ErrorIs(t, err, boom)
	_, err = sqlsource.Read(&rows{data: data, err: boom}, cols, 3, 0, "")
	assert.ErrorIs(t, err, boom)

	rs, err = sqlsource.Read(&rows{}, cols, 3, 0, "")
	require.NoError(t, err)
	assert.NotNil(t, rs.Rows, "an empty answer has rows, not null")
}

func TestCells(t *testing.T) {
	huge, _ := new(big.Int).SetString("9223372036854775808", 10)
	for _, tc := range []struct {
		in   any
		want string
		kind domain.Kind
	}{
		{nil, "null", domain.KindNull},
		{true, "true", domain.KindBool},
		{int8(-7), "-7", domain.KindInt},
		{uint32(4000000000), "4000000000", domain.KindInt},
		{uint64(18446744073709551615), "18446744073709551615", domain.KindDecimal},
		{big.NewInt(-5), "-5", domain.KindInt},
		{huge, "9223372036854775808", domain.KindDecimal},
		{0.5, "0.5", domain.KindFloat},
		{"é", "é", domain.KindText},
	} {
		c, ok := sqlsource.Scalar(tc.in)
		require.True(t, ok, "%T", tc.in)
		assert.Equal(t, tc.kind, c.Kind(), "%v", tc.in)
		assert.Equal(t, tc.want, c.Render(), "%v", tc.in)
	}
	_, ok := sqlsource.Scalar(float32(0.1))
	assert.False(t, ok, "float32 is the adapter's to convert")

	for _, tc := range []struct {
		coef int64
		exp  int32
		want string
		kind domain.Kind
	}{
		{1250, -2, "12.5", domain.KindDecimal},
		{1200, -2, "12", domain.KindInt},
		{-10, -2, "-0.1", domain.KindDecimal},
		{12, 3, "12000", domain.KindInt},
		{1, 19, "10000000000000000000", domain.KindDecimal},
		{0, 0, "0", domain.KindInt},
		{0, -4, "0", domain.KindInt},
		{76014193, -2, "760141.93", domain.KindDecimal},
		{-5, -20, "-0.00000000000000000005", domain.KindDecimal},
		{9223372036854775807, -1, "922337203685477580.7", domain.KindDecimal},
	} {
		c := sqlsource.DecimalCell(big.NewInt(tc.coef), tc.exp)
		assert.Equal(t, tc.kind, c.Kind(), "%de%d", tc.coef, tc.exp)
		assert.Equal(t, tc.want, c.Render(), "%de%d", tc.coef, tc.exp)
	}
	// Past 64 bits and 38 digits, the value is still exact.
	huge40, _ := new(big.Int).SetString("-1234567890123456789012345678901234567890", 10)
	assert.Equal(t, "-123456789012345678901234567890123456789.1", sqlsource.DecimalCell(new(big.Int).Sub(huge40, big.NewInt(1)), -1).Render())
	at := time.Date(2025, 3, 4, 5, 6, 7, 250_000_000, time.FixedZone("x", 2*3600))
	assert.Equal(t, "2025-03-04T03:06:07.25Z", sqlsource.TimestampText(at))
}

func TestErrorAndSettled(t *testing.T) {
	driver := errors.New("driver: connection refused to 10.0.0.1")
	e := &sqlsource.Error{System: "pg", Source: "s", Kind: domain.ErrUnavailable, Sentence: "the database cannot be reached", Err: driver}
	assert.Equal(t, "pg source s: the database cannot be reached", e.Error())
	assert.ErrorIs(t, e, domain.ErrUnavailable)
	assert.ErrorIs(t, e, driver)
	assert.NotErrorIs(t, e, domain.ErrRejected)
	assert.True(t, e.Unavailable())

	ctx := context.Background()
	for _, err := range []error{nil, e, sqlsource.Refusal(domain.SourceRefused, "no")} {
		out, ok := sqlsource.Settled(ctx, err)
		assert.True(t, ok)
		assert.Equal(t, err, out)
	}
	_, ok := sqlsource.Settled(ctx, driver)
	assert.False(t, ok, "the adapter classifies its driver's errors")

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	out, ok := sqlsource.Settled(cancelled, fmt.Errorf("wrapped: %w", driver))
	assert.True(t, ok)
	assert.ErrorIs(t, out, context.Canceled)
	expired, cancel := context.WithDeadline(ctx, time.Now().Add(-time.Second))
	defer cancel()
	out, ok = sqlsource.Settled(expired, driver)
	assert.True(t, ok)
	assert.Equal(t, domain.DeadlineExceeded, code(out))
}

func TestNetworkCheckAliasUserPassword(t *testing.T) {
	n := sqlsource.Network{System: "pg", Source: "not an alias", Server: sqlsource.Server{Host: "db", User: "u"}}
	assert.ErrorContains(t, n.Check(), "pg source: the alias")
	n = sqlsource.Network{System: "pg", Source: "s", Server: sqlsource.Server{Host: "db"}}
	assert.EqualError(t, n.Check(), "pg source s: user is required")
	pw := []byte("secret")
	n = sqlsource.Network{System: "pg", Source: "s", Server: sqlsource.Server{Host: "db", User: "u", Password: pw}}
	require.NoError(t, n.Check())
	pw[0] = 'X'
	assert.Equal(t, "secret", string(n.Password), "the caller's slice is not kept")
}

func TestCheckModel(t *testing.T) {
	m := &domain.Model{Name: "orders", Table: "orders", Columns: []domain.ModelColumn{
		{Name: "id", Type: domain.TypeInteger}, {Name: "Note", Type: domain.TypeText}}}
	fits := func(want domain.ColumnType, got string) bool { return want != domain.TypeInteger || got == "INT" }
	name := func(got string) string { return got }
	lower := func(s string) string { return strings.ToLower(s) }
	require.NoError(t, sqlsource.CheckModel(m, sqlsource.TableColumns[string]{"id": "INT", "note": "TEXT"}, lower, fits, name, nil))
	assert.EqualError(t, sqlsource.CheckModel(m, sqlsource.TableColumns[string]{"id": "INT"}, lower, fits, name, nil),
		"model orders: table orders has no column Note")
	assert.EqualError(t, sqlsource.CheckModel(m, sqlsource.TableColumns[string]{"id": "TEXT", "note": "TEXT"}, lower, fits, name, nil),
		"model orders: column id is declared integer but is TEXT in the database")
	other := func(want domain.ModelColumn, got string) string {
		if want.Name == "Note" {
			return "column Note is not readable"
		}
		return ""
	}
	assert.EqualError(t, sqlsource.CheckModel(m, sqlsource.TableColumns[string]{"id": "INT", "note": "TEXT"}, lower, fits, name, other),
		"model orders: column Note is not readable")
}
