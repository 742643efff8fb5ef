package httpapi

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"slices"
	"strings"
	"time"
	"unicode"

	"sutura.dev/domain"
)

// JWT bounds.
const (
	// ClockLeeway is the clock skew tolerated on exp, nbf and iat.
	ClockLeeway = 30 * time.Second
	// maxTokenBytes bounds a presented token.
	maxTokenBytes = 16 << 10
	// maxActorDepth bounds the RFC 8693 act chain.
	maxActorDepth = 8
	// maxNameLen bounds a subject, actor, group or scope.
	maxNameLen = 256
)

// tokenError says why a token was refused, for the person holding it. It
// never holds anything taken from the token.
type tokenError struct{ reason string }

func (e *tokenError) Error() string { return "the bearer token " + e.reason }

func refuseToken(reason string) error { return &tokenError{reason: reason} }

// verifier checks JWTs of security.inbound in direct mode and turns their
// claims into a principal.
type verifier struct {
	issuer, audience        string
	algorithms              []string
	scopeClaim, groupsClaim string
	mapping                 map[string][]string
	keys                    *keySet
	now                     func() time.Time
}

// verify checks token and returns its principal. The error is a
// *tokenError (401), or errKeysUnavailable (503).
func (v *verifier) verify(ctx context.Context, token string) (domain.Principal, error) {
	if len(token) > maxTokenBytes {
		return domain.Principal{}, refuseToken("is too long")
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return domain.Principal{}, refuseToken("is not a signed JWT (three dot-separated parts)")
	}
	hdr, err := decodeSegment(parts[0])
	if err != nil {
		return domain.Principal{}, refuseToken("has a header that is not base64url JSON")
	}
	alg, _ := hdr["alg"].(string)
	if !slices.Contains(v.algorithms, alg) {
		return domain.Principal{}, refuseToken("is signed with an algorithm this server does not accept (accepted: " + strings.Join(v.algorithms, ", ") + ")")
	}
	if _, ok := hdr["crit"]; ok {
		return domain.Principal{}, refuseToken("has critical header parameters this server does not understand")
	}
	if typ, ok := hdr["typ"]; ok {
		s, _ := typ.(string)
		if !slices.Contains([]string{"jwt", "at+jwt", "application/at+jwt"}, strings.ToLower(s)) {
			return domain.Principal{}, refuseToken("has a type (typ) that is not a JWT access token")
		}
	}
	kid := ""
	if k, ok := hdr["kid"]; ok {
		if kid, ok = k.(string); !ok || kid == "" {
			return domain.Principal{}, refuseToken("has a key id (kid) that is not a string")
		}
	}
	sig, err := b64(parts[2])
	if err != nil {
		return domain.Principal{}, refuseToken("has a signature that is not base64url")
	}
	keys, err := v.keys.candidates(ctx, kid, alg)
	switch {
	case errors.Is(err, errUnknownKey):
		return domain.Principal{}, refuseToken("names a key this server does not know")
	case err != nil:
		return domain.Principal{}, err
	}
	signed := []byte(parts[0] + "." + parts[1])
	if !slices.ContainsFunc(keys, func(k jwk) bool { return verifySignature(k, signed, sig) }) {
		return domain.Principal{}, refuseToken("has a signature that does not verify")
	}
	claims, err := decodeSegment(parts[1])
	if err != nil {
		return domain.Principal{}, refuseToken("has claims that are not base64url JSON")
	}
	return v.principal(claims)
}

// decodeSegment decodes a base64url JSON object; duplicate members are
// refused, so no two readers can see different claims.
func decodeSegment(seg string) (map[string]any, error) {
	b, err := b64(seg)
	if err != nil {
		return nil, err
	}
	v, err := domain.DecodeJSON(b)
	if err != nil {
		return nil, err
	}
	obj, ok := v.(domain.Object)
	if !ok {
		return nil, errors.New("not an object")
	}
	return objectMap(obj), nil
}

func objectMap(obj domain.Object) map[string]any {
	m := make(map[string]any, len(obj))
	for _, mem := range obj {
		m[mem.Key] = mem.Value
	}
	return m
}

func verifySignature(k jwk, signed, sig []byte) bool {
	switch k.alg {
	case RS256:
		h := sha256.Sum256(signed)
		return rsa.VerifyPKCS1v15(k.key.(*rsa.PublicKey), crypto.SHA256, h[:], sig) == nil
	case ES256:
		if len(sig) != 64 {
			return false
		}
		h := sha256.Sum256(signed)
		r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])
		return ecdsa.Verify(k.key.(*ecdsa.PublicKey), h[:], r, s)
	case EdDSA:
		return ed25519.Verify(k.key.(ed25519.PublicKey), signed, sig)
	}
	return false
}

// principal checks the registered claims and maps the rest.
func (v *verifier) principal(c map[string]any) (domain.Principal, error) {
	if iss, _ := c["iss"].(string); iss != v.issuer {
		return domain.Principal{}, refuseToken("was not issued by the issuer this server accepts")
	}
	if !audienceHolds(c["aud"], v.audience) {
		return domain.Principal{}, refuseToken("is not meant for this server (aud)")
	}
	now := v.now()
	exp, ok := numericDate(c["exp"])
	if !ok {
		return domain.Principal{}, refuseToken("has no valid expiry (exp)")
	}
	if !now.Before(exp.Add(ClockLeeway)) {
		return domain.Principal{}, refuseToken("has expired")
	}
	if raw, present := c["iat"]; present {
		iat, ok := numericDate(raw)
		if !ok {
			return domain.Principal{}, refuseToken("has an issue time (iat) that is not a date")
		}
		if now.Add(ClockLeeway).Before(iat) {
			return domain.Principal{}, refuseToken("was issued in the future (iat)")
		}
	}
	if raw, present := c["nbf"]; present {
		nbf, ok := numericDate(raw)
		if !ok {
			return domain.Principal{}, refuseToken("has a not-before (nbf) that is not a date")
		}
		if now.Add(ClockLeeway).Before(nbf) {
			return domain.Principal{}, refuseToken("is not valid yet (nbf)")
		}
	}
	sub, ok := claimName(c["sub"])
	if !ok {
		return domain.Principal{}, refuseToken("has no valid subject (sub)")
	}
	p := domain.Principal{Subject: sub}
	var err error
	if p.Scopes, err = names(c[v.scopeClaim], true); err != nil {
		return domain.Principal{}, refuseToken("has a scope claim that is not a space-separated string or a list of strings")
	}
	if p.Groups, err = names(c[v.groupsClaim], false); err != nil {
		return domain.Principal{}, refuseToken("has a groups claim that is not a list of strings")
	}
	if p.Actors, err = actors(c["act"]); err != nil {
		return domain.Principal{}, err
	}
	p.Audiences = audiences(p.Groups, v.mapping)
	return p, nil
}

// audienceHolds reports whether aud (a string or a list of strings) holds
// want.
func audienceHolds(aud any, want string) bool {
	switch a := aud.(type) {
	case string:
		return a == want
	case []any:
		return slices.ContainsFunc(a, func(x any) bool { s, _ := x.(string); return s == want })
	}
	return false
}

// numericDate reads a JSON numeric date (seconds since the epoch, possibly
// fractional).
func numericDate(v any) (time.Time, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return time.Time{}, false
	}
	f, err := n.Float64()
	if err != nil || f < 0 || f > 1e11 {
		return time.Time{}, false
	}
	sec := math.Floor(f)
	return time.Unix(int64(sec), int64((f-sec)*1e9)), true
}

// claimName accepts a non-empty string of at most maxNameLen bytes without
// control or invisible characters: names go into audit records and logs.
func claimName(v any) (string, bool) {
	s, ok := v.(string)
	if !ok || s == "" || len(s) > maxNameLen {
		return "", false
	}
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return "", false
		}
	}
	return s, true
}

// names reads a claim that is absent, a list of names or, when spaced, a
// space-separated string.
func names(v any, spaced bool) ([]string, error) {
	var out []string
	switch x := v.(type) {
	case nil:
		return nil, nil
	case string:
		if !spaced {
			x = strings.TrimSpace(x)
			if x == "" {
				return nil, nil
			}
			return checkNames([]string{x})
		}
		out = strings.Fields(x)
	case []any:
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, errors.New("not a string")
			}
			out = append(out, s)
		}
	default:
		return nil, errors.New("not a list")
	}
	return checkNames(out)
}

func checkNames(ns []string) ([]string, error) {
	for _, n := range ns {
		if _, ok := claimName(n); !ok {
			return nil, errors.New("not a name")
		}
	}
	return ns, nil
}

// actors reads the RFC 8693 act claim: the outermost act is the current
// actor, each nested act the one before it. Actors lists them nearest
// first.
func actors(v any) ([]string, error) {
	var out []string
	for depth := 0; v != nil; depth++ {
		if depth == maxActorDepth {
			return nil, refuseToken("has an actor chain (act) deeper than this server accepts")
		}
		obj, ok := v.(domain.Object)
		if !ok {
			return nil, refuseToken("has an actor (act) that is not an object")
		}
		m := objectMap(obj)
		sub, ok := claimName(m["sub"])
		if !ok {
			return nil, refuseToken("has an actor (act) without a valid subject")
		}
		out = append(out, sub)
		v = m["act"]
	}
	return out, nil
}

// audiences maps groups to the metric audiences they see, sorted and
// without repeats.
func audiences(groups []string, mapping map[string][]string) []string {
	var out []string
	for _, g := range groups {
		for _, a := range mapping[g] {
			if !slices.Contains(out, a) {
				out = append(out, a)
			}
		}
	}
	slices.Sort(out)
	return out
}
