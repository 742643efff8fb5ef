package main

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/cli/internal/config"
	"sutura.dev/domain"
)

// TestOneShotPreparedAsAlone: a one-shot process readies its sources for
// its question and the anchors together (app.Surface.Prepare), and the
// embedded engine answers them in one scan of the demo's orders table,
// which the question and the anchors of net_sales and order_count read;
// the question's answer and its leg's account (rows scanned, bytes, cache)
// are those of a process that was not readied for it.
func TestOneShotPreparedAsAlone(t *testing.T) {
	q, err := readQuestion("-", strings.NewReader(byChannel))
	require.NoError(t, err)
	caller := app.Caller{Principal: domain.LocalOperator, Transport: "cli"}
	ask := func(question *domain.Question) (domain.Outcome, domain.Cost) {
		p, err := open(&invocation{ctx: context.Background(), io: streams{err: io.Discard}, env: config.Env{}}, question)
		require.NoError(t, err)
		defer p.Close()
		out, cost, err := p.Surface.AnswerWithCost(context.Background(), caller, q)
		require.NoError(t, err)
		require.NotNil(t, out.Answer, "an answer")
		return out, cost
	}
	alone, aloneCost := ask(nil)
	prepared, preparedCost := ask(&q)
	assert.Equal(t, alone.Answer.Rows, prepared.Answer.Rows)
	assert.Equal(t, alone.Answer.Provenance, prepared.Answer.Provenance)
	assert.Equal(t, aloneCost.RowsScanned, preparedCost.RowsScanned)
	assert.Equal(t, aloneCost.BytesRead, preparedCost.BytesRead)
	assert.Equal(t, aloneCost.Cache, preparedCost.Cache)
}
