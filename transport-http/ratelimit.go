package httpapi

import (
	"hash/maphash"
	"math"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"
)

// RateLimit bounds the requests of one client with a token bucket: of one
// client address until the caller is authenticated, then of the
// authenticated principal. Zero values are the defaults; zero never means
// unlimited.
type RateLimit struct {
	// PerSecond is the sustained rate a client may send; default 50.
	PerSecond float64
	// Burst is how many requests a client may send at once; default 100.
	Burst int
}

// Rate limit defaults and bounds.
const (
	DefaultRatePerSecond = 50
	DefaultRateBurst     = 100
	// MaxTrackedClients bounds the memory of each limiter (addresses and
	// principals): past it, the client seen least recently is forgotten.
	MaxTrackedClients = 65536
	// limiterShards spreads clients over independently locked tables.
	limiterShards = 16
)

// limiter holds one token bucket per client key in a fixed number of
// shards, each a table of fixed capacity ordered by last use. A request
// costs one hash, one map lookup and a few pointer moves under its shard's
// lock, whatever the number of clients. A new client always gets a bucket:
// when its shard is full, the bucket used least recently is forgotten and
// reused. Forgetting a bucket can only favour its client (it starts again
// full), and a client cannot make another one's bucket be forgotten
// without bringing that many new clients of its own, each of which gets a
// bucket of its own anyway.
type limiter struct {
	rate   float64 // tokens per second
	burst  float64
	now    func() time.Time
	seed   maphash.Seed
	shards []limiterShard
}

// limiterShard is a table of buckets with an intrusive list from the most
// (head) to the least (tail) recently used.
type limiterShard struct {
	mu         sync.Mutex
	buckets    map[string]*bucket
	capacity   int
	head, tail *bucket
}

type bucket struct {
	key        string
	tokens     float64
	last       time.Time
	prev, next *bucket
}

func newLimiter(cfg RateLimit, now func() time.Time) *limiter {
	return newSizedLimiter(cfg, now, limiterShards, MaxTrackedClients/limiterShards)
}

func newSizedLimiter(cfg RateLimit, now func() time.Time, shards, perShard int) *limiter {
	l := &limiter{rate: cfg.PerSecond, burst: float64(cfg.Burst), now: now, seed: maphash.MakeSeed(),
		shards: make([]limiterShard, shards)}
	for i := range l.shards {
		l.shards[i] = limiterShard{buckets: make(map[string]*bucket, perShard), capacity: perShard}
	}
	return l
}

func (l *limiter) shard(key string) *limiterShard {
	return &l.shards[maphash.String(l.seed, key)%uint64(len(l.shards))]
}

// allow takes a token for key, or reports how long until one is there.
func (l *limiter) allow(key string) (ok bool, retryAfter time.Duration) {
	now := l.now()
	sh := l.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	b := sh.touch(key, l.burst, now)
	b.tokens = math.Min(l.burst, b.tokens+now.Sub(b.last).Seconds()*l.rate)
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	return false, time.Duration((1 - b.tokens) / l.rate * float64(time.Second))
}

// touch returns key's bucket, moved to the head of the list; a new key
// gets a full bucket, the least recently used one when the shard is full.
func (sh *limiterShard) touch(key string, burst float64, now time.Time) *bucket {
	b := sh.buckets[key]
	switch {
	case b != nil:
		sh.unlink(b)
	case len(sh.buckets) >= sh.capacity:
		b = sh.tail
		sh.unlink(b)
		delete(sh.buckets, b.key)
		*b = bucket{key: key, tokens: burst, last: now}
		sh.buckets[key] = b
	default:
		b = &bucket{key: key, tokens: burst, last: now}
		sh.buckets[key] = b
	}
	b.next = sh.head
	if sh.head != nil {
		sh.head.prev = b
	}
	sh.head = b
	if sh.tail == nil {
		sh.tail = b
	}
	return b
}

func (sh *limiterShard) unlink(b *bucket) {
	if b.prev != nil {
		b.prev.next = b.next
	} else {
		sh.head = b.next
	}
	if b.next != nil {
		b.next.prev = b.prev
	} else {
		sh.tail = b.prev
	}
	b.prev, b.next = nil, nil
}

// anonymousKey and tokenKey are the buckets of one client address: the
// requests it sends without a credential that holds, and (with the
// deployment token alone, which names no caller) those whose token held.
// Keeping them apart is what lets unauthenticated traffic from an address
// share nothing with the authenticated callers behind it.
func anonymousKey(addr string) string { return "anonymous " + addr }
func tokenKey(addr string) string     { return "token " + addr }

// clientAddress is the address a request comes from: the connection's
// peer, or, when that peer is one of server.trusted_proxies, the nearest
// address in X-Forwarded-For (read from the right) that is not a trusted
// proxy itself. A header from any other peer is ignored, since anyone can
// send one; a malformed entry ends the walk at the proxy that added it.
func (s *Server) clientAddress(r *http.Request) string {
	peer := r.RemoteAddr
	if h, _, err := net.SplitHostPort(peer); err == nil {
		peer = h
	}
	ip, err := netip.ParseAddr(peer)
	if err != nil || !s.trusted(ip) {
		return peer
	}
	hops := r.Header.Values("X-Forwarded-For")
	for i := len(hops) - 1; i >= 0; i-- {
		list := strings.Split(hops[i], ",")
		for j := len(list) - 1; j >= 0; j-- {
			hop, err := netip.ParseAddr(strings.TrimSpace(list[j]))
			if err != nil {
				return ip.String()
			}
			hop = hop.Unmap().WithZone("")
			if !s.trusted(hop) {
				return hop.String()
			}
			ip = hop
		}
	}
	return ip.String()
}

// trusted reports whether ip is in server.trusted_proxies.
func (s *Server) trusted(ip netip.Addr) bool {
	ip = ip.Unmap().WithZone("")
	for _, p := range s.cfg.TrustedProxies {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// addressKey is the rate-limit key of a client address: the IP, or for
// IPv6 its /64, which one subscriber usually holds whole.
func addressKey(remoteAddr string) string {
	host := remoteAddr
	if h, _, err := net.SplitHostPort(remoteAddr); err == nil {
		host = h
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	ip = ip.Unmap().WithZone("")
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}
