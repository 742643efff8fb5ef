package inproc

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app/apptest"
	"sutura.dev/app/wire"
	"sutura.dev/domain"
)

// collect drains a stream, failing the test on an error.
func collect(t *testing.T, e *env, ctx context.Context, tool, args string) []Record {
	t.Helper()
	var recs []Record
	for rec, err := range e.conn.InvokeStream(ctx, tool, json.RawMessage(args)) {
		require.NoError(t, err)
		recs = append(recs, rec)
	}
	return recs
}

// reassemble rebuilds the outcome a stream of an answer carries.
func reassemble(t *testing.T, recs []Record) domain.Outcome {
	t.Helper()
	a := &domain.Answer{}
	for i, rec := range recs {
		assert.Equal(t, i, rec.Seq)
		if rec.Kind == RecordRows {
			a.Columns = rec.Columns
			a.Rows = append(a.Rows, rec.Rows...)
			continue
		}
		require.Equal(t, RecordAnswer, rec.Kind)
		require.Equal(t, len(recs)-1, i, "the terminal record comes last")
		assert.Equal(t, len(a.Rows), rec.RowCount)
		a.Columns = rec.Columns
		a.Provenance = *rec.Provenance
		a.Explanation = rec.Explanation
	}
	return domain.Answered(a)
}

// TestStreamOfTenThousandRows: a 10,000-row answer comes in bounded
// chunks, then its provenance; together they are exactly Invoke's answer.
func TestStreamOfTenThousandRows(t *testing.T) {
	sys := metered(newFake())
	sys.Generate = domain.MaxRowCap
	e := newEnv(t, sys, envConfig{})
	recs := collect(t, e, t.Context(), "ask_metric", qAnswer)
	require.Len(t, recs, domain.MaxRowCap/DefaultChunkRows+1)
	for _, rec := range recs[:len(recs)-1] {
		assert.Equal(t, RecordRows, rec.Kind)
		assert.False(t, rec.Terminal())
		assert.Len(t, rec.Rows, DefaultChunkRows)
		assert.Len(t, rec.Columns, 3)
		assert.Nil(t, rec.Cost, "the cost comes with the terminal record")
	}
	last := recs[len(recs)-1]
	assert.True(t, last.Terminal())
	assert.Equal(t, domain.MaxRowCap, last.RowCount)
	require.NotNil(t, last.Cost)
	assert.Equal(t, domain.MaxRowCap, last.Cost.RowsReturned)
	assert.True(t, last.Cost.Measured)

	whole, err := e.conn.Invoke(t.Context(), "ask_metric", json.RawMessage(qAnswer))
	require.NoError(t, err)
	rebuilt, err := wire.OutcomeContent(reassemble(t, recs))
	require.NoError(t, err)
	assert.Equal(t, apptest.Steady(whole), apptest.Steady(rebuilt))
	assert.Len(t, e.audit.Records(), 2, "one question, one record, streamed or not")
}

func TestStreamChunksAreBoundedInBytes(t *testing.T) {
	sys := newFake()
	sys.Generate = 100
	e := newEnv(t, sys, envConfig{conn: Config{ChunkRows: 1000, ChunkBytes: 200}})
	recs := collect(t, e, t.Context(), "ask_metric", qAnswer)
	rows := 0
	for _, rec := range recs[:len(recs)-1] {
		size := 0
		for _, row := range rec.Rows {
			size += rowBytes(row)
		}
		assert.LessOrEqual(t, size, 200)
		assert.NotEmpty(t, rec.Rows)
		rows += len(rec.Rows)
	}
	assert.Equal(t, 100, rows)
	assert.Greater(t, len(recs), 5)

	e = newEnv(t, sys, envConfig{conn: Config{ChunkBytes: 1}})
	recs = collect(t, e, t.Context(), "ask_metric", qAnswer)
	assert.Len(t, recs, 101, "a record holds at least one row")
}

func TestStreamOfAnEmptyAnswer(t *testing.T) {
	e := newEnv(t, &apptest.System{}, envConfig{})
	recs := collect(t, e, t.Context(), "ask_metric", qAnswer)
	require.Len(t, recs, 1)
	assert.Equal(t, RecordAnswer, recs[0].Kind)
	assert.Equal(t, 0, recs[0].RowCount)
	assert.Len(t, recs[0].Columns, 3, "the columns come even without rows")
	whole, err := e.conn.Invoke(t.Context(), "ask_metric", json.RawMessage(qAnswer))
	require.NoError(t, err)
	rebuilt, err := wire.OutcomeContent(reassemble(t, recs))
	require.NoError(t, err)
	assert.Equal(t, apptest.Steady(whole), apptest.Steady(rebuilt))
}

func TestStreamOfARefusalIsOneTerminalRecord(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{})
	recs := collect(t, e, t.Context(), "ask_metric", qRefusal)
	require.Len(t, recs, 1)
	assert.Equal(t, RecordRefusal, recs[0].Kind)
	assert.True(t, recs[0].Terminal())
	assert.Equal(t, domain.DimensionValueNotAllowed, recs[0].Reason.Code())
	b, err := json.Marshal(recs[0])
	require.NoError(t, err)
	assert.NotContains(t, string(b), canary)
}

func TestStreamOfDescribeCatalogIsItsContent(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{})
	recs := collect(t, e, t.Context(), "describe_catalog", `{}`)
	require.Len(t, recs, 1)
	assert.Equal(t, RecordContent, recs[0].Kind)
	whole, err := e.conn.Invoke(t.Context(), "describe_catalog", nil)
	require.NoError(t, err)
	assert.Equal(t, string(whole), string(recs[0].Content))
}

func TestStreamErrorsAreItsOnlyElement(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{})
	for tool, args := range map[string]string{"run_sql": `{}`, "ask_metric": `{"sql":"x"}`} {
		n := 0
		for rec, err := range e.conn.InvokeStream(t.Context(), tool, json.RawMessage(args)) {
			n++
			require.Error(t, err)
			assert.Zero(t, rec.Kind)
		}
		assert.Equal(t, 1, n)
	}
}

func TestStreamStops(t *testing.T) {
	sys := newFake()
	sys.Generate = 2000
	e := newEnv(t, sys, envConfig{})
	n := 0
	for range e.conn.InvokeStream(t.Context(), "ask_metric", json.RawMessage(qAnswer)) {
		n++
		break
	}
	assert.Equal(t, 1, n, "the consumer may stop")

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var errs []error
	rows := 0
	for rec, err := range e.conn.InvokeStream(ctx, "ask_metric", json.RawMessage(qAnswer)) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		rows += len(rec.Rows)
		cancel()
	}
	assert.Equal(t, DefaultChunkRows, rows, "delivery stops when ctx ends")
	require.Len(t, errs, 1)
	assert.ErrorIs(t, errs[0], context.Canceled)
	assert.Equal(t, 0, e.adm.InUse())
}
