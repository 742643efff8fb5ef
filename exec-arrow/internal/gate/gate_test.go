package gate

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAwaitLeave: a question refused as Busy is asked again when another
// question ends, at once when none runs, and not after its context or
// deadline ended.
func TestAwaitLeave(t *testing.T) {
	var mu sync.Mutex
	var g Gate
	far := time.Now().Add(time.Minute)
	mu.Lock()
	assert.True(t, g.AwaitLeave(context.Background(), &mu, far), "none runs: the memory is free")
	g.Enter()
	time.AfterFunc(10*time.Millisecond, func() { mu.Lock(); g.Leave(); mu.Unlock() })
	assert.True(t, g.AwaitLeave(context.Background(), &mu, far), "woken when the running question ends")
	assert.Zero(t, g.Active())

	g.Enter()
	assert.False(t, g.AwaitLeave(context.Background(), &mu, time.Now().Add(20*time.Millisecond)), "the deadline")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(10*time.Millisecond, cancel)
	assert.False(t, g.AwaitLeave(ctx, &mu, far), "the caller went away")
	cancel()
	assert.False(t, g.AwaitLeave(ctx, &mu, far), "already gone")
	mu.Unlock()
}

func TestIdleWaitsForQuestions(t *testing.T) {
	var mu sync.Mutex
	var g Gate
	g.Enter()
	done := make(chan error)
	go func() {
		mu.Lock()
		defer mu.Unlock()
		done <- g.Idle(context.Background(), &mu)
	}()
	select {
	case <-done:
		t.Fatal("Idle returned while a question runs")
	case <-time.After(20 * time.Millisecond):
	}
	mu.Lock()
	g.Leave()
	mu.Unlock()
	require.NoError(t, <-done)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	mu.Lock()
	g.Enter()
	assert.ErrorIs(t, g.Idle(ctx, &mu), context.Canceled)
	mu.Unlock()
}
