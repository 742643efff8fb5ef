package inproc

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/app/apptest"
	"sutura.dev/domain"
)

// TestRepinEvent: a refresh that swaps in a bundle with another pin is an
// event the kernel drains after its calls; answers after it carry the new
// pin.
func TestRepinEvent(t *testing.T) {
	v1 := apptest.Bundle(t, "v1")
	cat, err := app.NewSwappableCatalog(v1)
	require.NoError(t, err)
	e := newEnv(t, newFake(), envConfig{catalog: cat})

	events, err := e.conn.DrainEvents(t.Context())
	require.NoError(t, err)
	assert.Nil(t, events, "nothing happened yet")

	_, err = e.conn.Invoke(t.Context(), "ask_metric", json.RawMessage(qAnswer))
	require.NoError(t, err)
	v2 := apptest.Bundle(t, "v2")
	old, err := cat.Swap(v2)
	require.NoError(t, err)
	assert.Same(t, v1, old)

	events, err = e.conn.DrainEvents(t.Context())
	require.NoError(t, err)
	require.Len(t, events, 1)
	ev := events[0]
	assert.Equal(t, EventCatalogRepinned, ev.Kind)
	assert.Equal(t, &app.Pin{Version: "v1", Digest: v1.Digest()}, ev.Old)
	assert.Equal(t, &app.Pin{Version: "v2", Digest: v2.Digest()}, ev.New)
	assert.False(t, ev.Time.IsZero())

	events, err = e.conn.DrainEvents(t.Context())
	require.NoError(t, err)
	assert.Nil(t, events, "a drain forgets what it returned")

	got, err := e.conn.Invoke(t.Context(), "ask_metric", json.RawMessage(qAnswer))
	require.NoError(t, err)
	assert.Contains(t, string(got), `"definition_version":"v2"`)

	_, err = cat.Swap(apptest.Bundle(t, "v2"))
	require.NoError(t, err)
	events, err = e.conn.DrainEvents(t.Context())
	require.NoError(t, err)
	assert.Nil(t, events, "the same pin again is no re-pin")

	require.NoError(t, e.conn.Close())
	_, err = cat.Swap(apptest.Bundle(t, "v3"))
	require.NoError(t, err)
	events, err = e.conn.DrainEvents(t.Context())
	require.NoError(t, err)
	assert.Nil(t, events, "a closed connection keeps no events")
}

func TestEventsDroppedWhenTheBufferIsFull(t *testing.T) {
	cat, err := app.NewSwappableCatalog(apptest.Bundle(t, "v1"))
	require.NoError(t, err)
	e := newEnv(t, newFake(), envConfig{catalog: cat, conn: Config{EventBuffer: 2}})
	for _, v := range []string{"v2", "v3", "v4", "v5"} {
		_, err := cat.Swap(apptest.Bundle(t, v))
		require.NoError(t, err)
	}
	events, err := e.conn.DrainEvents(t.Context())
	require.NoError(t, err)
	require.Len(t, events, 3)
	assert.Equal(t, EventsDropped, events[0].Kind)
	assert.Equal(t, 2, events[0].Dropped)
	assert.Equal(t, "v3", events[1].Old.Version, "the oldest were dropped")
	assert.Equal(t, "v5", events[2].New.Version)
}

func TestDrainEventsHonoursTheContext(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := e.conn.DrainEvents(ctx)
	assert.ErrorIs(t, err, context.Canceled)
}

// TestNoEventsFromACatalogueThatCannotSwap: a catalogue without
// app.CatalogNotifier never produces events.
func TestNoEventsFromACatalogueThatCannotSwap(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{catalog: apptest.Catalog{Pinned: apptest.Bundle(t, "v1")}})
	events, err := e.conn.DrainEvents(t.Context())
	require.NoError(t, err)
	assert.Nil(t, events)
}

// TestConcurrentCallsAndSwaps runs calls, swaps and drains at once (run
// with -race): every re-pin is kept exactly once, every call answers.
func TestConcurrentCallsAndSwaps(t *testing.T) {
	cat, err := app.NewSwappableCatalog(apptest.Bundle(t, "v0"))
	require.NoError(t, err)
	e := newEnv(t, newFake(), envConfig{catalog: cat})
	bundles := make([]*domain.Bundle, 20)
	for i := range bundles {
		bundles[i] = apptest.Bundle(t, fmt.Sprintf("v%d", i+1))
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var drained []Event
	for range 4 {
		wg.Go(func() {
			for range 10 {
				_, err := e.conn.Invoke(t.Context(), "ask_metric", json.RawMessage(qAnswer))
				assert.NoError(t, err)
				evs, err := e.conn.DrainEvents(t.Context())
				assert.NoError(t, err)
				mu.Lock()
				drained = append(drained, evs...)
				mu.Unlock()
			}
		})
	}
	wg.Go(func() {
		for _, b := range bundles {
			_, err := cat.Swap(b)
			assert.NoError(t, err)
		}
	})
	wg.Wait()
	rest, err := e.conn.DrainEvents(t.Context())
	require.NoError(t, err)
	drained = append(drained, rest...)
	require.Len(t, drained, len(bundles))
	seen := map[string]bool{}
	for _, ev := range drained {
		assert.Equal(t, EventCatalogRepinned, ev.Kind)
		seen[ev.New.Version] = true
	}
	assert.Len(t, seen, len(bundles))
}
