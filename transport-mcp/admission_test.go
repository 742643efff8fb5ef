package mcpserver

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAtCapacity sends N+k slow questions at once with N slots: never more
// than N execute, the k others come back at capacity after the admission
// timeout, and describe_catalog is answered while every slot is taken.
func TestAtCapacity(t *testing.T) {
	const n, k = 2, 3
	transports(t, func(t *testing.T, connect func(*testing.T, *env) *mcp.ClientSession) {
		t.Parallel()
		sys := newFake()
		sys.Block = true
		e := newEnv(t, sys, envConfig{max: n, admissionTimeout: time.Second})
		cs := connect(t, e)

		start := time.Now()
		results := make(chan *mcp.CallToolResult, n+k)
		var wg sync.WaitGroup
		for range n + k {
			wg.Go(func() {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask_metric", Arguments: qSlow})
				assert.NoError(t, err)
				results <- res
			})
		}
		for range n {
			select {
			case <-sys.Started():
			case <-time.After(5 * time.Second):
				t.Fatal("the first N questions did not start")
			}
		}
		assert.Equal(t, n, e.adm.InUse())

		res := call(t, cs, "describe_catalog", nil)
		assert.False(t, res.IsError, "describe_catalog takes no slot")
		assert.Equal(t, n, e.adm.InUse())

		for range k {
			res := <-results
			require.True(t, res.IsError)
			assert.Equal(t, TextAtCapacity, text(res))
		}
		assert.GreaterOrEqual(t, time.Since(start), 900*time.Millisecond, "at capacity only after the admission window")
		sys.Release()
		wg.Wait()
		close(results)
		for res := range results {
			assert.False(t, res.IsError, text(res))
		}
		assert.EqualValues(t, n, sys.MaxRunning(), "never more than N execute")
		assert.Equal(t, 0, e.adm.InUse())
	})
}

// TestReplyDeadlineDuringAdmission: a caller whose request timeout passes
// while waiting for a slot gets the timeout sentence.
func TestReplyDeadlineDuringAdmission(t *testing.T) {
	transports(t, func(t *testing.T, connect func(*testing.T, *env) *mcp.ClientSession) {
		t.Parallel()
		e := newEnv(t, newFake(), envConfig{max: 1, admissionTimeout: 5 * time.Second, requestTimeout: 2 * time.Second})
		release, err := e.adm.Acquire(context.Background())
		require.NoError(t, err)
		defer release()
		start := time.Now()
		res := call(t, connect(t, e), "ask_metric", qSlow)
		require.True(t, res.IsError)
		assert.Equal(t, TextTimeout, text(res))
		assert.Less(t, time.Since(start), 3*time.Second, "the request timeout bounds the whole wait, admission included")
		assert.Equal(t, 1, e.adm.InUse(), "only the slot held by the test")
	})
}

// TestDeadlineStopsTheWork: execution that outlives its budget is stopped
// at the data system and its slot comes back at once.
func TestDeadlineStopsTheWork(t *testing.T) {
	transports(t, func(t *testing.T, connect func(*testing.T, *env) *mcp.ClientSession) {
		t.Parallel()
		sys := newFake()
		sys.Block = true
		e := newEnv(t, sys, envConfig{max: 1, requestTimeout: 2 * time.Second})
		res := call(t, connect(t, e), "ask_metric", qSlow)
		assert.False(t, res.IsError, "an execution budget that ran out is a refusal")
		assert.Equal(t, "deadline_exceeded", structured(t, res)["reason"].(map[string]any)["code"])
		eventually(t, func() bool { return e.adm.InUse() == 0 }, "the slot is back within 1 s")
		ended := sys.Ended()
		require.Len(t, ended, 1)
		assert.ErrorIs(t, ended[0], context.DeadlineExceeded, "the data system saw its context end")
	})
}

// TestPeerCancellation: a client that cancels its call cancels the
// question's context; the data system stops and the slot comes back.
func TestPeerCancellation(t *testing.T) {
	transports(t, func(t *testing.T, connect func(*testing.T, *env) *mcp.ClientSession) {
		t.Parallel()
		sys := newFake()
		sys.Block = true
		e := newEnv(t, sys, envConfig{max: 1})
		cs := connect(t, e)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask_metric", Arguments: qSlow})
			done <- err
		}()
		select {
		case <-sys.Started():
		case <-time.After(5 * time.Second):
			t.Fatal("the question did not start")
		}
		require.Equal(t, 1, e.adm.InUse())
		cancel()
		assert.ErrorIs(t, <-done, context.Canceled)
		eventually(t, func() bool { return e.adm.InUse() == 0 }, "the slot is back within 1 s")
		eventually(t, func() bool {
			ended := sys.Ended()
			return len(ended) == 1 && errors.Is(ended[0], context.Canceled)
		}, "the data system saw the cancellation")
		eventually(t, func() bool {
			recs := e.audit.Records()
			return len(recs) == 1 && recs[0].Code == "cancelled"
		}, "the cancelled question is audited")

		// The session still serves.
		res := call(t, cs, "describe_catalog", nil)
		assert.False(t, res.IsError)
	})
}
