package budget

import (
	"context"
	"sync"
	"time"
)

// Memory is the ledger of one process (governance.budget_ledger: memory):
// lost on restart, not shared between replicas.
type Memory struct {
	mu      sync.Mutex
	windows map[string]*window
}

type window struct {
	start            time.Time
	bytes, questions int64
}

// NewMemory returns an empty in-memory ledger.
func NewMemory() *Memory { return &Memory{windows: map[string]*window{}} }

// current returns key's window at now, opening an empty one when it ended;
// the caller holds mu.
func (m *Memory) current(key string, now time.Time, length time.Duration) *window {
	w := m.windows[key]
	if w == nil || !now.Before(w.start.Add(length)) {
		// A clock stepped back (now before start) keeps the window.
		return &window{start: now}
	}
	return w
}

// Spent implements Ledger.
func (m *Memory) Spent(_ context.Context, key string, now time.Time, length time.Duration) (time.Time, int64, int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	w := m.current(key, now, length)
	return w.start, w.bytes, w.questions, nil
}

// Debit implements Ledger.
func (m *Memory) Debit(_ context.Context, key string, now time.Time, length time.Duration, bytes int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	w := m.current(key, now, length)
	w.bytes += bytes
	w.questions++
	m.windows[key] = w
	return nil
}
