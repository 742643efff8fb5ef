package gate

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWaitGivesUp(t *testing.T) {
	far := time.Now().Add(time.Minute)
	tests := []struct {
		name     string
		active   int
		deadline time.Time
		want     bool
	}{
		{name: "alone: no one could give memory back", active: 1, deadline: far, want: false},
		{name: "deadline passed", active: 2, deadline: time.Now().Add(-time.Second), want: false},
		{name: "another question runs", active: 2, deadline: far, want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var g Gate
			for range tc.active {
				g.Enter()
			}
			mu.Lock()
			var tk Ticket
			if tc.want {
				time.AfterFunc(10*time.Millisecond, func() { mu.Lock(); g.Signal(); mu.Unlock() })
			}
			assert.Equal(t, tc.want, g.Wait(context.Background(), &tk, "me", &mu, tc.deadline))
			g.Done(&tk)
			mu.Unlock()
		})
	}
}

// TestNewestWaiterGivesUpWhenAllWait: two running questions both waiting
// would wait for each other; the newer one gives up, the older goes on.
func TestNewestWaiterGivesUpWhenAllWait(t *testing.T) {
	var mu sync.Mutex
	var g Gate
	g.Enter()
	g.Enter()
	far := time.Now().Add(time.Minute)
	older := make(chan bool)
	go func() {
		mu.Lock()
		var tk Ticket
		ok := g.Wait(context.Background(), &tk, "older", &mu, far)
		g.Done(&tk)
		mu.Unlock()
		older <- ok
	}()
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(g.waiting) == 1 }, time.Second, time.Millisecond)
	mu.Lock()
	var tk Ticket
	assert.False(t, g.Wait(context.Background(), &tk, "newer", &mu, far), "the newest waiter gives up")
	g.Done(&tk)
	g.Leave() // the newer question ends, giving its memory back
	mu.Unlock()
	assert.True(t, <-older)
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
