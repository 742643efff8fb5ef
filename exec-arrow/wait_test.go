package engine

import (
	"context"
	"errors"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/gate"
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
		need = max(need, s.cache.peak)
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
	assert.LessOrEqual(t, e.cache.peak, limit)
	e.cache.mu.Lock()
	var cached int64 // the joined tables' columns stay cached
	for _, tb := range e.cache.tables {
		for _, ce := range tb.cols {
			cached += ce.bytes
		}
	}
	assert.Equal(t, cached, e.cache.used, "every question's bytes given back")
	assert.Zero(t, e.cache.gate.Active(), "no question left running")
	e.cache.mu.Unlock()
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
	e.cache.enter() // another question runs throughout
	want := run(t, e, p)
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, e.Settle(ctx), context.DeadlineExceeded, "the fill waits while a question runs")
	e.cache.leave()
	require.NoError(t, e.Settle(context.Background()))
	reads := e.cache.reads.Load()
	assert.Equal(t, want, run(t, e, p))
	assert.Equal(t, reads, e.cache.reads.Load(), "answered from the cache the fill loaded")
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
	reads := e.cache.reads.Load()
	assert.Equal(t, want, run(t, e, p))
	assert.Greater(t, e.cache.reads.Load(), reads, "held: the second answer streamed the files again")
	e.StartFills()
	require.NoError(t, e.Settle(context.Background()))
	reads = e.cache.reads.Load()
	assert.Equal(t, want, run(t, e, p))
	assert.Equal(t, reads, e.cache.reads.Load(), "started: answered from the cache the fill loaded")
}

// TestEveryReservationWaitsWhileOthersRun: a question's reservation that
// does not fit while another question holds memory is refused as
// gate.Busy (the question gives back what it holds and is asked again
// when that one ends), whichever reservation it is — working memory, or
// a structure derived from a cached column (a join's index, codes) — and
// is refused for good only when no other question runs.
func TestEveryReservationWaitsWhileOthersRun(t *testing.T) {
	dir := t.TempDir()
	writeShop(t, dir, shopOptions{rows: 20_000, rowGroup: 5_000})
	const limit = 64 << 20
	e, err := New(context.Background(), Config{Source: "files", Files: os.DirFS(dir), WorkingSetMaxBytes: limit})
	require.NoError(t, err)
	run(t, e, sixQuestions(t)[0])
	require.NoError(t, e.Settle(context.Background())) // its columns cached
	c := e.cache
	var ce *colEntry
	c.mu.Lock()
	for _, tb := range c.tables {
		for _, x := range tb.cols {
			ce = x
		}
	}
	require.NotNil(t, ce, "a cached column")
	ce.pins++ // the asking question's
	c.mu.Unlock()

	c.enter() // the holding question
	require.NoError(t, c.Reserve(limit/2))
	c.enter() // the asking question
	var busy gate.Busy
	assert.ErrorAs(t, c.Reserve(limit*3/4), &busy, "working memory")
	assert.ErrorAs(t, ce.ReserveDerived(limit*3/4), &busy, "a derived structure")
	c.Release(limit / 2)
	c.leave() // the holder ends
	c.mu.Lock()
	c.used += limit / 2 // what is held now is the asker's own
	c.mu.Unlock()
	for name, err := range map[string]error{"working memory": c.Reserve(limit * 3 / 4), "a derived structure": ce.ReserveDerived(limit * 3 / 4)} {
		assert.False(t, errors.As(err, &busy), "%s alone: refused for good", name)
		assert.Equal(t, domain.ResourcesExhausted, refusal(t, err), name)
	}
	c.mu.Lock()
	c.used -= limit / 2
	ce.pins--
	c.mu.Unlock()
	c.leave()
}

// A column held for a structure built in the background (colEntry.Hold)
// is not evicted to make room until the build releases it; a column
// already evicted cannot be held.
func TestHeldColumnIsNotEvicted(t *testing.T) {
	dir := t.TempDir()
	writeShop(t, dir, shopOptions{rows: 20_000, rowGroup: 5_000})
	e, err := New(context.Background(), Config{Source: "files", Files: os.DirFS(dir), WorkingSetMaxBytes: 64 << 20})
	require.NoError(t, err)
	run(t, e, sixQuestions(t)[0])
	require.NoError(t, e.Settle(context.Background()))
	c := e.cache
	var cols []*colEntry
	c.mu.Lock()
	for _, tb := range c.tables {
		for _, x := range tb.cols {
			cols = append(cols, x)
		}
	}
	c.mu.Unlock()
	require.NotEmpty(t, cols)
	held := cols[0]
	release, ok := held.Hold()
	require.True(t, ok)
	c.mu.Lock()
	for v := c.victimLocked(); v != nil; v = c.victimLocked() {
		require.NotSame(t, held, v, "the held column is no victim")
		c.retireColLocked(v)
	}
	assert.False(t, held.dead)
	c.mu.Unlock()
	release()
	c.mu.Lock()
	assert.Same(t, held, c.victimLocked(), "released, it is the last one left")
	c.retireColLocked(held)
	c.mu.Unlock()
	_, ok = held.Hold()
	assert.False(t, ok, "an evicted column cannot be held")
}
