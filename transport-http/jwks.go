package httpapi

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"os"
	"sync"
	"time"
)

// The signature algorithms a deployment may pin (security.inbound.algorithms).
const (
	RS256 = "RS256"
	ES256 = "ES256"
	EdDSA = "EdDSA"
)

// Key set bounds.
const (
	// RefetchInterval is the shortest time between two reads of the key
	// set: an unknown kid triggers at most one read per interval, so forged
	// kids cannot turn the server into a load on the identity provider.
	RefetchInterval = 30 * time.Second
	// KeysMaxAge is how long a read key set is used before the next token
	// causes a fresh read (keys removed at the provider stop working within
	// it); a shorter maximum staleness brings the read forward to half of
	// it.
	KeysMaxAge = time.Hour
	// DefaultJWKSMaxStale is how long keys are trusted after they were
	// last read when every read since has failed
	// (security.inbound.jwks_max_stale_seconds): past it callers are
	// refused with identity_unavailable.
	DefaultJWKSMaxStale = time.Hour
	// fetchTimeout bounds one read of a JWKS URL.
	fetchTimeout = 10 * time.Second
	// maxJWKSBytes bounds a key set document.
	maxJWKSBytes = 1 << 20
	// minRSABits is the smallest RSA modulus accepted.
	minRSABits = 2048
)

// jwk is one usable verification key of a key set.
type jwk struct {
	kid string
	alg string // the one algorithm this key verifies with
	key crypto.PublicKey
}

// rawJWK is the wire form of a JSON Web Key (RFC 7517, 7518, 8037), read
// member by member with exactMembers.
type rawJWK struct {
	Kty, Kid, Use, Alg string
	KeyOps             []string
	Crv, N, E, X, Y    string
}

// parseJWKS returns the signature keys of a JWK set that verify RS256
// (RSA of at least 2048 bits), ES256 (P-256) or EdDSA (Ed25519). Keys for
// encryption, of other types or curves, or malformed are skipped; a set
// with no usable key is an error.
func parseJWKS(data []byte) ([]jwk, error) {
	var set struct{ Keys []json.RawMessage }
	if err := exactMembers(data, map[string]any{"keys": &set.Keys}); err != nil {
		return nil, errors.New("the key set is not a JSON Web Key Set")
	}
	var keys []jwk
	for _, raw := range set.Keys {
		var k rawJWK
		if exactMembers(raw, map[string]any{"kty": &k.Kty, "kid": &k.Kid, "use": &k.Use, "alg": &k.Alg, "key_ops": &k.KeyOps,
			"crv": &k.Crv, "n": &k.N, "e": &k.E, "x": &k.X, "y": &k.Y}) != nil {
			continue
		}
		if key, ok := k.parse(); ok {
			keys = append(keys, key)
		}
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("the key set holds no usable signature key (%d keys read)", len(set.Keys))
	}
	return keys, nil
}

// exactMembers decodes the members of the JSON object data named exactly
// as in fields into their destinations, and ignores every other member.
// JSON Web Key member names are case-sensitive (RFC 7517 §4), and
// encoding/json's struct decoding is not: it would read "KTY" as kty.
func exactMembers(data []byte, fields map[string]any) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	if m == nil {
		return errors.New("not an object")
	}
	for name, dst := range fields {
		if v, ok := m[name]; ok {
			if err := json.Unmarshal(v, dst); err != nil {
				return err
			}
		}
	}
	return nil
}

func (k rawJWK) parse() (jwk, bool) {
	if k.Use != "" && k.Use != "sig" {
		return jwk{}, false
	}
	var out jwk
	switch k.Kty {
	case "RSA":
		n, ok1 := b64int(k.N)
		e, ok2 := b64int(k.E)
		if !ok1 || !ok2 || n.BitLen() < minRSABits || !e.IsInt64() || e.Int64() < 3 || e.Int64() > 1<<31-1 || e.Bit(0) == 0 {
			return jwk{}, false
		}
		out = jwk{alg: RS256, key: &rsa.PublicKey{N: n, E: int(e.Int64())}}
	case "EC":
		x, err1 := b64(k.X)
		y, err2 := b64(k.Y)
		if k.Crv != "P-256" || err1 != nil || err2 != nil || len(x) != 32 || len(y) != 32 {
			return jwk{}, false
		}
		pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
		if err != nil {
			return jwk{}, false
		}
		out = jwk{alg: ES256, key: pub}
	case "OKP":
		x, err := b64(k.X)
		if k.Crv != "Ed25519" || err != nil || len(x) != ed25519.PublicKeySize {
			return jwk{}, false
		}
		out = jwk{alg: EdDSA, key: ed25519.PublicKey(x)}
	default:
		return jwk{}, false
	}
	if k.Alg != "" && k.Alg != out.alg {
		return jwk{}, false // the key is pinned to another algorithm
	}
	out.kid = k.Kid
	return out, true
}

func b64(s string) ([]byte, error) { return base64.RawURLEncoding.Strict().DecodeString(s) }

func b64int(s string) (*big.Int, bool) {
	b, err := b64(s)
	if err != nil || len(b) == 0 {
		return nil, false
	}
	return new(big.Int).SetBytes(b), true
}

// keySource reads a key set document.
type keySource func(ctx context.Context) ([]byte, error)

func fileSource(path string) keySource {
	return func(context.Context) ([]byte, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("reading the key set file: %w", err)
		}
		defer f.Close()
		return readBounded(f)
	}
}

func urlSource(client *http.Client, url string) keySource {
	return func(ctx context.Context) ([]byte, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Accept", "application/jwk-set+json, application/json")
		resp, err := client.Do(req)
		if err != nil {
			return nil, fmt.Errorf("fetching the key set: %w", err)
		}
		defer resp.Body.Close()
		switch {
		case resp.StatusCode >= 300 && resp.StatusCode < 400:
			return nil, fmt.Errorf("fetching the key set: status %d: redirects are not followed; configure the URL the keys are served at", resp.StatusCode)
		case resp.StatusCode != http.StatusOK:
			return nil, fmt.Errorf("fetching the key set: status %d", resp.StatusCode)
		}
		return readBounded(resp.Body)
	}
}

func readBounded(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxJWKSBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading the key set: %w", err)
	}
	if len(b) > maxJWKSBytes {
		return nil, fmt.Errorf("the key set is larger than %d bytes", maxJWKSBytes)
	}
	return b, nil
}

// Key set errors.
var (
	// errKeysUnavailable: no key set was ever read; identity cannot be
	// checked at all.
	errKeysUnavailable = errors.New("no key set could be read")
	// errUnknownKey: the key set holds no key for the token.
	errUnknownKey = errors.New("no key of the key set matches the token")
)

// keySet caches the keys of a source. A token whose kid (or algorithm) no
// cached key matches, or any token once the keys are due for a read
// (KeysMaxAge, or half of maxStale when that is sooner), causes a read of
// the source, at most once per RefetchInterval. A read that fails keeps
// the known keys and is logged, until they are maxStale old: then they are
// no longer trusted, and every token is refused as unverifiable (fail
// closed) until a read succeeds.
type keySet struct {
	source   keySource
	log      *slog.Logger
	now      func() time.Time
	maxStale time.Duration

	mu     sync.RWMutex
	keys   []jwk
	loaded time.Time // when keys were read; zero when never

	fetchMu     sync.Mutex
	lastAttempt time.Time
}

// candidates returns the keys that may have signed a token with kid and
// alg (every key of alg when kid is empty). The error is errKeysUnavailable
// when no key set was read or the last one read is too old to trust, and
// errUnknownKey when the trusted set has no such key.
func (ks *keySet) candidates(ctx context.Context, kid, alg string) ([]jwk, error) {
	if found, age := ks.match(kid, alg); len(found) > 0 && age == fresh {
		return found, nil
	}
	ks.refresh(ctx)
	found, age := ks.match(kid, alg)
	switch {
	case age == unread:
		return nil, errKeysUnavailable
	case age == expired:
		ks.log.Warn("inbound identity: the key set could not be read for longer than security.inbound.jwks_max_stale_seconds; refusing every token until it can",
			"max_stale", ks.maxStale)
		return nil, errKeysUnavailable
	case len(found) > 0:
		return found, nil
	}
	return nil, errUnknownKey
}

// keysAge says whether the keys may be used, and whether they are due for
// a read.
type keysAge int

const (
	unread  keysAge = iota // no key set was ever read
	fresh                  // read recently enough
	due                    // still trusted, due for a read
	expired                // read longer than maxStale ago: not trusted
)

func (ks *keySet) match(kid, alg string) (found []jwk, age keysAge) {
	ks.mu.RLock()
	defer ks.mu.RUnlock()
	if ks.loaded.IsZero() {
		return nil, unread
	}
	switch old := ks.now().Sub(ks.loaded); {
	case old >= ks.maxStale:
		return nil, expired
	case old >= min(KeysMaxAge, ks.maxStale/2):
		age = due
	default:
		age = fresh
	}
	for _, k := range ks.keys {
		if k.alg == alg && (kid == "" || k.kid == kid) {
			found = append(found, k)
		}
	}
	return found, age
}

// refresh reads the source unless it was read less than RefetchInterval
// ago. Concurrent callers wait for the one read and then use its keys.
func (ks *keySet) refresh(ctx context.Context) {
	ks.fetchMu.Lock()
	defer ks.fetchMu.Unlock()
	now := ks.now()
	if !ks.lastAttempt.IsZero() && now.Sub(ks.lastAttempt) < RefetchInterval {
		return
	}
	ks.lastAttempt = now
	// The read is not cancelled with the request that caused it: its keys
	// serve every request.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), fetchTimeout)
	defer cancel()
	data, err := ks.source(ctx)
	var keys []jwk
	if err == nil {
		keys, err = parseJWKS(data)
	}
	if err != nil {
		ks.mu.RLock()
		known := len(ks.keys)
		ks.mu.RUnlock()
		ks.log.Warn("inbound identity: the key set could not be read; serving with the keys already known", "known_keys", known, "error", err)
		return
	}
	ks.set(keys, now)
	ks.log.Info("inbound identity: key set read", "keys", len(keys))
}

func (ks *keySet) set(keys []jwk, at time.Time) {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	ks.keys, ks.loaded = keys, at
}
