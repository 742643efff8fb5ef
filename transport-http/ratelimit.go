package httpapi

import (
	"math"
	"sync"
	"time"
)

// RateLimit bounds the requests of one client address with a token bucket.
// Zero values are the defaults; zero never means unlimited.
type RateLimit struct {
	// PerSecond is the sustained rate a client address may send; default
	// 50.
	PerSecond float64
	// Burst is how many requests a client address may send at once; default
	// 100.
	Burst int
}

// Rate limit defaults.
const (
	DefaultRatePerSecond = 50
	DefaultRateBurst     = 100
	// maxTrackedClients bounds the memory of the limiter; idle buckets are
	// dropped first.
	maxTrackedClients = 65536
)

// limiter holds one token bucket per client address.
type limiter struct {
	rate  float64 // tokens per second
	burst float64
	now   func() time.Time

	mu        sync.Mutex
	buckets   map[string]*bucket
	lastSweep time.Time
}

type bucket struct {
	tokens float64
	last   time.Time
}

func newLimiter(cfg RateLimit, now func() time.Time) *limiter {
	return &limiter{rate: cfg.PerSecond, burst: float64(cfg.Burst), now: now, buckets: map[string]*bucket{}}
}

// allow takes a token for client, or reports how long until one is there.
func (l *limiter) allow(client string) (ok bool, retryAfter time.Duration) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweep(now)
	b := l.buckets[client]
	if b == nil {
		if len(l.buckets) >= maxTrackedClients {
			// Every tracked client is active: refuse a new one rather than
			// grow without bound.
			return false, time.Second
		}
		b = &bucket{tokens: l.burst, last: now}
		l.buckets[client] = b
	}
	b.tokens = math.Min(l.burst, b.tokens+now.Sub(b.last).Seconds()*l.rate)
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	return false, time.Duration((1 - b.tokens) / l.rate * float64(time.Second))
}

// sweep drops the buckets that have refilled completely: forgetting them
// changes nothing. It runs at most once a minute, or when the table is full.
func (l *limiter) sweep(now time.Time) {
	if now.Sub(l.lastSweep) < time.Minute && len(l.buckets) < maxTrackedClients {
		return
	}
	l.lastSweep = now
	full := time.Duration(l.burst / l.rate * float64(time.Second))
	for k, b := range l.buckets {
		if now.Sub(b.last) >= full {
			delete(l.buckets, k)
		}
	}
}
