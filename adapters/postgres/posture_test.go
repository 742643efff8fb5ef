package postgres_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	postgres "sutura.dev/adapters/postgres"
	"sutura.dev/domain"
)

// rlsBundle is one metric over rls.orders, the table whose row-level
// security policies show each caller role one channel.
func rlsBundle(t *testing.T) *domain.Bundle {
	t.Helper()
	b, err := domain.NewBundle("rls", rlsDefinitions(), domain.Knowledge{})
	require.NoError(t, err)
	return b
}

func rlsDefinitions() domain.Definitions {
	return domain.Definitions{
		Models: []domain.Model{{Name: "rls_orders", Source: source, Table: "rls.orders",
			Columns: cols("order_id", "integer", "order_date", "date", "channel", "text", "status", "text")}},
		Metrics: []domain.Metric{{Name: "orders_seen", Model: "rls_orders", TimeColumn: "order_date",
			Measure:     &domain.Measure{Simple: &domain.Term{Aggregate: domain.Count, Column: "order_id"}},
			Grains:      []domain.Grain{domain.Year},
			Dimensions:  []domain.Dimension{{Name: "channel", Column: "channel"}},
			Description: "orders the caller may see"}},
	}
}

const rlsQuestion = `{"metrics":["orders_seen"],"grain":"year","range":{"start":"2025-01-01","end":"2026-01-01"},"dimensions":["channel"]}`

// impersonating is the run's source under impersonation-at-source: the
// NOINHERIT service user, which may read nothing itself, with its
// subjects mapped to roles.
func impersonating(f *fixture) postgres.Config {
	cfg := f.config()
	cfg.User = f.role("svc")
	cfg.Posture = domain.ImpersonationAtSource
	cfg.Impersonate = map[string]string{
		"alice": f.role("online"),
		"bob":   f.role("store"),
		"carol": f.role("none"),               // may use the schema, not read the table
		"erin":  f.role("other"),              // a role the service user is not a member of
		"frank": "sutura_no_such_role_at_all", // no such role
	}
	cfg.VerificationIdentity = f.role("online")
	cfg.Models = rlsDefinitions().Models
	return cfg
}

func TestImpersonationRowLevelSecurity(t *testing.T) {
	f := needDB(t)
	db := open(t, impersonating(f))
	plan := compile(t, rlsBundle(t), domain.LocalOperator, rlsQuestion)
	ctx := context.Background()

	alice, err := db.ExecuteAs(ctx, domain.Principal{Subject: "alice"}, plan)
	require.NoError(t, err)
	bob, err := db.ExecuteAs(ctx, domain.Principal{Subject: "bob"}, plan)
	require.NoError(t, err)
	// One question, two callers, two answers: each sees only its channel.
	require.Equal(t, [][]string{{"online", "2025-01-01", "3121"}}, rendered(alice))
	require.Equal(t, [][]string{{"store", "2025-01-01", "1950"}}, rendered(bob))

	// The shared service user of the reader source sees both.
	shared := open(t, func() postgres.Config { c := f.config(); c.Models = nil; return c }())
	_, err = shared.Execute(ctx, plan)
	require.Error(t, err, "the reader has no grant on rls.orders")
	require.Equal(t, domain.SourceRefused, refusalCode(err))
	f.exec(t, "GRANT USAGE ON SCHEMA rls TO "+f.role("reader")+"; GRANT SELECT ON rls.orders TO "+f.role("reader"))
	all, err := shared.Execute(ctx, plan)
	require.NoError(t, err, "RLS without a policy for the reader hides every row, not an error")
	require.Empty(t, all.Rows)

	// Execute has no caller: it runs as the verification identity.
	anchor, err := db.Execute(ctx, plan)
	require.NoError(t, err)
	require.Equal(t, rendered(alice), rendered(anchor))
}

func TestImpersonationRefusals(t *testing.T) {
	f := needDB(t)
	db := open(t, impersonating(f))
	plan := compile(t, rlsBundle(t), domain.LocalOperator, rlsQuestion)
	ctx := context.Background()
	for _, tc := range []struct {
		subject string
		want    domain.Code
	}{
		{"dave", domain.CredentialUnavailable},  // no mapping: never the service user
		{"", domain.CredentialUnavailable},      // no subject at all
		{"erin", domain.CredentialUnavailable},  // a role the service user cannot set
		{"frank", domain.CredentialUnavailable}, // a role that does not exist
		{"carol", domain.SourceRefused},         // the role has no SELECT
	} {
		_, err := db.ExecuteAs(ctx, domain.Principal{Subject: tc.subject}, plan)
		require.Equal(t, tc.want, refusalCode(err), "subject %q: %v", tc.subject, err)
		re := err.(*domain.RefusalError)
		require.NotContains(t, re.Reason.Detail(), "permission denied", "no driver text in a refusal")
		require.NotContains(t, re.Reason.Detail(), tc.subject+"@", "no caller value in a refusal")
	}

	// Without a verification identity, a call with no caller is refused.
	cfg := impersonating(f)
	cfg.VerificationIdentity = ""
	noAnchor := open(t, cfg)
	_, err := noAnchor.Execute(ctx, plan)
	require.Equal(t, domain.CredentialUnavailable, refusalCode(err))
	_, err = noAnchor.RunSQL(ctx, "SELECT 1", 1)
	require.Equal(t, domain.CredentialUnavailable, refusalCode(err))

	// The service user itself reads nothing: impersonation is not a
	// fallback that would have worked anyway.
	direct := f.config()
	direct.User = f.role("svc")
	svc := open(t, direct)
	_, err = svc.Execute(ctx, plan)
	require.Equal(t, domain.SourceRefused, refusalCode(err))
}

// TestSharedIgnoresThePrincipal: under shared-service-user every caller
// runs as the service user.
func TestSharedIgnoresThePrincipal(t *testing.T) {
	f := needDB(t)
	db := open(t, f.config())
	plan := compile(t, demoBundle(t, source), domain.LocalOperator,
		`{"metrics":["order_count"],"grain":"year","range":{"start":"2025-01-01","end":"2026-01-01"}}`)
	for _, p := range []domain.Principal{{Subject: "anyone"}, domain.LocalOperator, {}} {
		rs, err := db.ExecuteAs(context.Background(), p, plan)
		require.NoError(t, err)
		require.Equal(t, [][]string{{"2025-01-01", "4841"}}, rendered(rs))
	}
	require.Equal(t, domain.SharedServiceUser, db.Posture())
}
