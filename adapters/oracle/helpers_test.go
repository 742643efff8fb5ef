package oracle_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"sutura.dev/adapters/oracle"
	"sutura.dev/adapters/sqlsource"
	"sutura.dev/adapters/sqlsource/sqltest"
	"sutura.dev/app/conformance"
	"sutura.dev/domain"
)

// No Oracle server runs on this project's machines: these tests check
// what needs none (configuration, binding, refusals made before anything
// is sent), unit_test.go checks decoding and error mapping against
// go-ora's types, and live_test.go runs the contract suite against the
// server SUTURA_ORACLE_URL names, or says NOT RUN: oracle (…).

const source = sqltest.DemoSource

// dataSystem, validator, principalExecutor and sqlRunner are app's ports,
// restated: this module may not import app.
type dataSystem interface {
	Execute(ctx context.Context, plan *domain.Plan) (*domain.RowSet, error)
}

type validator interface {
	Validate(ctx context.Context) error
}

type principalExecutor interface {
	ExecuteAs(ctx context.Context, principal domain.Principal, plan *domain.Plan) (*domain.RowSet, error)
}

type sqlRunner interface {
	RunSQL(ctx context.Context, statement string, rowCap int) (*domain.RowSet, error)
}

type privilegeChecker interface {
	CheckSQLPrivileges(ctx context.Context) error
}

var (
	_ dataSystem        = (*oracle.DB)(nil)
	_ validator         = (*oracle.DB)(nil)
	_ principalExecutor = (*oracle.DB)(nil)
	_ sqlRunner         = (*oracle.DB)(nil)
	_ privilegeChecker  = (*oracle.DB)(nil)
)

// demoBundle is the demo catalogue on source, mirrored by app/conformance.
func demoBundle(t testing.TB) *domain.Bundle {
	t.Helper()
	b, err := conformance.DemoBundle(source)
	require.NoError(t, err)
	return b
}

// nowhere is a source whose listener does not exist (a closed loopback
// port): what a test that must not reach a server opens.
func nowhere() oracle.Config {
	return oracle.Config{Source: source, Service: "FREEPDB1",
		Server: sqlsource.Server{Host: "127.0.0.1", Port: 1, User: "svc", TransportMode: sqlsource.Plaintext}}
}

func open(t testing.TB, cfg oracle.Config) *oracle.DB {
	t.Helper()
	db, err := oracle.New(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(db.Close)
	return db
}
