package app_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/app/apptest"
)

// TestNothingIsAnsweredUnaudited: once the audit sink has failed a write
// (the answer of that call was withheld as internal), every later call is
// refused unavailable before any work — the data system is not asked —
// and Ready says why, until the sink writes again; then calls are
// answered and audited as before.
func TestNothingIsAnsweredUnaudited(t *testing.T) {
	sys := &apptest.System{}
	s, audit, _ := newSurface(t, sys, 2, 5*time.Second)
	const q = `{"metrics":["revenue"],"grain":"year","range":{"start":"2025-01-01","end":"2026-01-01"}}`
	require.NoError(t, s.Ready(context.Background()))

	audit.Fail(errors.New("no space left on device"))
	_, err := s.Answer(context.Background(), anon, question(t, q))
	require.ErrorIs(t, err, app.ErrInternal, "the write that fails withholds its answer")
	calls := sys.Calls()

	for range 3 {
		_, err = s.Answer(context.Background(), anon, question(t, q))
		var f *app.Failure
		require.ErrorAs(t, err, &f)
		assert.Equal(t, app.CodeUnavailable, f.Code)
		assert.Contains(t, f.Detail, "the audit log cannot be written")
	}
	assert.Equal(t, calls, sys.Calls(), "refused before the data system is asked")
	assert.ErrorContains(t, s.Ready(context.Background()), "the audit log cannot be written")

	audit.Fail(nil)
	require.NoError(t, s.Ready(context.Background()))
	out, err := s.Answer(context.Background(), anon, question(t, q))
	require.NoError(t, err)
	require.NotNil(t, out.Answer)
	recs := audit.Records()
	require.NotEmpty(t, recs)
	assert.Equal(t, "answer", recs[len(recs)-1].Outcome)
}
