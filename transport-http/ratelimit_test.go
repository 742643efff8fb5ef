package httpapi

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLimiterForgetsTheLeastRecentlyUsed: a full table never refuses a new
// client; it forgets the client seen least recently, whose next request
// starts again from a full bucket.
func TestLimiterForgetsTheLeastRecentlyUsed(t *testing.T) {
	now := time.Unix(1000, 0)
	l := newSizedLimiter(RateLimit{PerSecond: 0.001, Burst: 1}, func() time.Time { return now }, 1, 3)
	for _, k := range []string{"a", "b", "c"} {
		ok, _ := l.allow(k)
		require.True(t, ok, k)
	}
	ok, _ := l.allow("a") // a is now the most recently used, and empty
	require.False(t, ok)
	ok, _ = l.allow("d")
	assert.True(t, ok, "a new client gets a bucket although the table is full")
	sh := &l.shards[0]
	assert.Len(t, sh.buckets, 3, "the table holds at most its capacity")
	assert.NotContains(t, sh.buckets, "b", "the least recently used is forgotten")
	assert.Contains(t, sh.buckets, "a")
	ok, _ = l.allow("a")
	assert.False(t, ok, "a recently used bucket is kept, empty")

	// Thousands of new clients later, the table still holds three.
	for i := range 5000 {
		ok, _ := l.allow(fmt.Sprint("x", i))
		require.True(t, ok)
	}
	assert.Len(t, sh.buckets, 3)
	n := 0
	for b := sh.head; b != nil; b = b.next {
		n++
	}
	assert.Equal(t, 3, n, "the list and the map agree")
}

func TestAddressKey(t *testing.T) {
	for addr, want := range map[string]string{
		"192.0.2.7:5555":             "192.0.2.7",
		"[::ffff:192.0.2.7]:5555":    "192.0.2.7",
		"[2001:db8:1:2:3:4:5:6]:443": "2001:db8:1:2::/64",
		"[2001:db8:1:2:ffff::1]:443": "2001:db8:1:2::/64",
		"[fe80::1%eth0]:80":          "fe80::/64",
		"[::1]:80":                   "::/64",
		"not an address":             "not an address",
		"@":                          "@",
	} {
		assert.Equal(t, want, addressKey(addr), addr)
	}
}

// TestRateLimitIsPerPrincipal: behind one address (a proxy), each
// authenticated caller has its own bucket; the address bucket pays only
// for what is not authenticated, so failed tokens are still limited per
// address before any signature is checked.
func TestRateLimitIsPerPrincipal(t *testing.T) {
	idp := newIdentityProvider(t)
	e := idp.env(t, envConfig{cfg: Config{RateLimit: RateLimit{PerSecond: 0.001, Burst: 2}}})
	alice := idp.bearer(t, idp.claims("alice", scopeCatalog))
	bob := idp.bearer(t, idp.claims("bob", scopeCatalog))
	for range 2 {
		require.Equal(t, http.StatusOK, e.do(t, request{path: "/v1/catalog", header: alice}).status)
	}
	r := e.do(t, request{path: "/v1/catalog", header: alice})
	m := requireFailure(t, r, RateLimited)
	assert.Contains(t, m["detail"], "caller")
	assert.NotEmpty(t, r.header.Get("Retry-After"))
	for range 2 {
		assert.Equal(t, http.StatusOK, e.do(t, request{path: "/v1/catalog", header: bob}).status,
			"another caller from the same address has its own bucket")
	}
	// Neither caller emptied the address bucket: a wrong token is still
	// checked, twice, and then the address is limited.
	wrong := map[string]string{"Authorization": "Bearer not.a.token"}
	requireFailure(t, e.do(t, request{path: "/v1/catalog", header: wrong}), Unauthorized)
	requireFailure(t, e.do(t, request{path: "/v1/catalog", header: wrong}), Unauthorized)
	m = requireFailure(t, e.do(t, request{path: "/v1/catalog", header: wrong}), RateLimited)
	assert.Contains(t, m["detail"], "address")
}

// BenchmarkLimiter: the cost of a request does not grow with the number
// of clients tracked.
func BenchmarkLimiter(b *testing.B) {
	for _, clients := range []int{16, 4096, MaxTrackedClients, 4 * MaxTrackedClients} {
		b.Run(fmt.Sprint(clients), func(b *testing.B) {
			l := newLimiter(RateLimit{PerSecond: 50, Burst: 100}, time.Now)
			keys := make([]string, clients)
			for i := range keys {
				keys[i] = fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)
			}
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				i := 0
				for pb.Next() {
					l.allow(keys[i%clients])
					i += 7919
				}
			})
		})
	}
}
