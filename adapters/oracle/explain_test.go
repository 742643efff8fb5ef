package oracle_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/adapters/sqlsource"
	"sutura.dev/adapters/sqlsource/sqltest"
	"sutura.dev/domain"
	"sutura.dev/semantic"
)

// TestExplanation: the statement an explanation shows is the text the leg
// sends under a traced call, ending with its traceparent comment, with the
// values as text beside it; the identity is the service user when nobody
// is impersonated (docs/contract.md §16). Nothing here reaches a server.
func TestExplanation(t *testing.T) {
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	db := open(t, nowhere())
	plan := sqltest.Compile(t, demoBundle(t), domain.LocalOperator,
		`{"metrics":["net_sales"],"grain":"month","range":{"start":"2026-01-01","end":"2026-04-01"},"dimensions":["area"],"filters":[{"op":"eq","dimension":"area","value":"East"}]}`)
	ctx := domain.WithTraceParent(context.Background(), tp)
	st, err := db.Statement(ctx, plan)
	require.NoError(t, err)
	sent, args, err := sqlsource.Render(ctx, "oracle", source, plan, semantic.Oracle)
	require.NoError(t, err)
	assert.Equal(t, sent, st.Text)
	assert.True(t, strings.HasSuffix(st.Text, " /* traceparent='"+tp+"' */"), st.Text)
	assert.Equal(t, "oracle", st.Dialect)
	assert.Len(t, st.Params, len(args))
	assert.Contains(t, st.Params, "East")
	assert.Equal(t, "svc", db.Identity(domain.LocalOperator, false))
}
