package engine

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConcurrentColdQuestionsWaitForMemory asks 24 cold questions at once
// (the six of issue 10, four times) of an engine whose working set holds
// any two of them streaming but not all: a question whose memory others
// hold is asked again when one of them ends instead of being refused, so
// every one is answered, equal to its answer alone, and the working set
// stays the ceiling.
func TestConcurrentColdQuestionsWaitForMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("NOT RUN: -short skips writing a 200 000-row table")
	}
	dir := t.TempDir()
	writeShop(t, dir, shopOptions{rows: 200_000, rowGroup: 25_000})
	ctx := context.Background()
	plans := sixQuestions(t)
	cfg := func(limit int64) Config {
		return Config{Source: "files", Files: os.DirFS(dir), WorkingSetMaxBytes: limit, NoCacheFill: true}
	}
	var need int64 // the most one question holds streaming
	want := make([][][]string, len(plans))
	for i, p := range plans {
		s, err := New(ctx, cfg(0))
		require.NoError(t, err)
		want[i] = run(t, s, p)
		need = max(need, s.cache.Stats().Peak)
	}
	limit := 2*need + need/2
	e, err := New(ctx, cfg(limit))
	require.NoError(t, err)

	const rounds = 4
	errs := make([]error, rounds*len(plans))
	got := make([][][]string, rounds*len(plans))
	var wg sync.WaitGroup
	for k := range errs {
		wg.Go(func() {
			rs, err := e.Execute(ctx, plans[k%len(plans)])
			errs[k] = err
			if err == nil {
				got[k] = rendered(rs)
			}
		})
	}
	wg.Wait()
	// Before questions were asked again, about half were refused; a
	// question refused for memory others hold now gives back all it took
	// and is asked again when one of them ends, so none is.
	for k, err := range errs {
		if assert.NoError(t, err, "question %d", k) {
			assert.Equal(t, want[k%len(plans)], got[k], "question %d", k)
		}
	}
	assert.LessOrEqual(t, e.cache.Stats().Peak, limit)
	s := e.cache.Stats() // the joined tables' columns stay cached
	assert.Equal(t, s.Columns, s.Used, "every question's bytes given back")
	assert.Zero(t, s.Active, "no question left running")
}

// TestFillPausesWhileQuestionsRun: the background fill that follows a
// streamed answer does not run while a question runs (it would take a
// core from it); it finishes once none runs, and the next answer comes
// from the cache.
func TestFillPausesWhileQuestionsRun(t *testing.T) {
	dir := t.TempDir()
	writeShop(t, dir, shopOptions{rows: 100_000, rowGroup: 10_000})
	e := newEngine(t, os.DirFS(dir))
	p := sixQuestions(t)[0]
	e.cache.Enter() // another question runs throughout
	want := run(t, e, p)
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, e.Settle(ctx), context.DeadlineExceeded, "the fill waits while a question runs")
	e.cache.Leave()
	require.NoError(t, e.Settle(context.Background()))
	reads := e.cache.Stats().Reads
	assert.Equal(t, want, run(t, e, p))
	assert.Equal(t, reads, e.cache.Stats().Reads, "answered from the cache the fill loaded")
}

// TestHeldFillsWaitForStartFills: an engine that holds its fills
// (Config.HoldFills, a serving process during its start) queues the fill a
// streamed answer asks for without running it — the next answer streams
// again — and runs it once StartFills is called.
func TestHeldFillsWaitForStartFills(t *testing.T) {
	dir := t.TempDir()
	writeShop(t, dir, shopOptions{rows: 100_000, rowGroup: 10_000})
	e, err := New(context.Background(), Config{Source: "files", Files: os.DirFS(dir), HoldFills: true})
	require.NoError(t, err)
	p := sixQuestions(t)[0]
	want := run(t, e, p)
	require.NoError(t, e.Settle(context.Background()), "a held fill is not waited for")
	reads := e.cache.Stats().Reads
	assert.Equal(t, want, run(t, e, p))
	assert.Greater(t, e.cache.Stats().Reads, reads, "held: the second answer streamed the files again")
	e.StartFills()
	require.NoError(t, e.Settle(context.Background()))
	reads = e.cache.Stats().Reads
	assert.Equal(t, want, run(t, e, p))
	assert.Equal(t, reads, e.cache.Stats().Reads, "started: answered from the cache the fill loaded")
}
