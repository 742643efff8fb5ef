package budget

import (
	"context"
	"sync"
	"time"
)

// Memory is the ledger of one process (governance.budget_ledger: memory):
// lost on restart, not shared between replicas. Windows that ended are
// forgotten once more than sweepAt callers are held, so its size follows
// the callers active in a window, not every caller ever seen.
type Memory struct {
	mu      sync.Mutex
	windows map[string]*window
}

type window struct {
	start, end       time.Time
	bytes, questions int64
}

// sweepAt is how many callers the ledger holds before it forgets the
// windows that ended.
const sweepAt = 4096

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
	w.end = w.start.Add(length)
	w.bytes += bytes
	w.questions++
	if _, held := m.windows[key]; !held && len(m.windows) >= sweepAt {
		for k, old := range m.windows {
			if !now.Before(old.end) {
				delete(m.windows, k)
			}
		}
	}
	m.windows[key] = w
	return nil
}

// Len returns how many callers' windows the ledger holds.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.windows)
}
