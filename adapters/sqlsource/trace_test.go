package sqlsource

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
	"sutura.dev/semantic"
)

func TestTraceComment(t *testing.T) {
	valid := "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	for name, tc := range map[string]struct {
		tp, want string
	}{
		"none":                {"", ""},
		"valid":               {valid, " /* traceparent='" + valid + "' */"},
		"a quote and a close": {"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0' */ DROP TABLE x; --", ""},
		"upper case":          {"00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01", ""},
		"one byte short":      {valid[:54], ""},
		"zero trace":          {"00-00000000000000000000000000000000-00f067aa0ba902b7-01", ""},
	} {
		t.Run(name, func(t *testing.T) {
			ctx := domain.WithTraceParent(context.Background(), tc.tp)
			assert.Equal(t, tc.want, TraceComment(ctx))
		})
	}
}

func TestRenderEndsWithTheTraceComment(t *testing.T) {
	plan := &domain.Plan{Legs: []domain.Leg{{Source: "pg"}}}
	_, _, err := Render(context.Background(), "postgres", "pg", plan, semantic.Postgres)
	require.Error(t, err, "an uncompiled plan is not rendered")
	_, err = ExplainStatement(context.Background(), "postgres", "other", plan, semantic.Postgres)
	require.Error(t, err, "a plan of another source is not explained")

	st := Explained(domain.WithTraceParent(context.Background(), "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"), "pg", "postgres",
		semantic.Statement{SQL: "SELECT 1 WHERE x = $1", Params: []semantic.Param{{Name: "$1", Value: "Lyon"}}})
	assert.Equal(t, domain.Statement{Source: "pg", Dialect: "postgres",
		Text:   "SELECT 1 WHERE x = $1 /* traceparent='00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' */",
		Params: []string{"Lyon"}}, st)
}

func TestIdentityName(t *testing.T) {
	id := &Identities{System: "postgres", Source: "pg", Noun: "database role", Posture: domain.ImpersonationAtSource,
		Impersonate: map[string]string{"ana": "role_ana"}}
	assert.Equal(t, "svc", id.Name(domain.Principal{Subject: "ana"}, false, "svc"))
	assert.Equal(t, "role_ana", id.Name(domain.Principal{Subject: "ana"}, true, "svc"))
	assert.Empty(t, id.Name(domain.Principal{Subject: "bob"}, true, "svc"), "no identity for an unmapped subject")
}

func TestTraced(t *testing.T) {
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	const comment = "\n/* traceparent='" + tp + "' */"
	traced := domain.WithTraceParent(context.Background(), tp)
	for name, tc := range map[string]struct{ in, want string }{
		"plain":                   {"SELECT 1", "SELECT 1" + comment},
		"a trailing semicolon":    {"SELECT 1 ;\n\t; ", "SELECT 1" + comment},
		"a trailing line comment": {"SELECT 1 -- the end", "SELECT 1 -- the end" + comment},
		"a quoted semicolon":      {"SELECT ';'", "SELECT ';'" + comment},
	} {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tc.want, Traced(traced, tc.in))
		})
	}
	assert.Equal(t, "SELECT 1;", Traced(context.Background(), "SELECT 1;"), "no trace, no change")
	bad := domain.WithTraceParent(context.Background(), "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0' */ DROP TABLE x; --")
	assert.Equal(t, "SELECT 1", Traced(bad, "SELECT 1"), "a malformed traceparent writes nothing")
}
