package httpapi

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/asn1"
	"encoding/base64"
	"encoding/json"
	"math"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
)

// The JWT fuzz targets hold the server's verification against a reference
// written with the standard library alone, on keys generated for the test
// (testKeys): RS256, ES256 and EdDSA keys the server trusts (published in
// its JWKS file as rsa-1, ec-1 and ed-1), and an RSA key it does not
// (rsa-2). The server is asked through its handler (GET /v1/catalog with
// the token), so what is compared is what a caller gets: 401 for a refused
// token; 200, or 403 insufficient_scope, for an accepted one.

// refKey is a key the reference trusts.
type refKey struct {
	alg string
	pub crypto.PublicKey
}

// refKeys are the keys of the server's key set, by kid.
func refKeys() map[string]refKey {
	k := testKeys()
	return map[string]refKey{
		"rsa-1": {alg: "RS256", pub: &k.rsa.PublicKey},
		"ec-1":  {alg: "ES256", pub: &k.ec.PublicKey},
		"ed-1":  {alg: "EdDSA", pub: k.ed.Public()},
	}
}

// refVerdict is the reference's judgement of a token.
type refVerdict struct {
	valid bool
	// borderline: exp or nbf is within a few seconds of the edge of its
	// window, where the server, reading its clock a moment apart, may
	// judge otherwise.
	borderline bool
	scopes     []string
}

// refMargin is how close to the edge of exp or nbf a token is borderline.
const refMargin = 5 * time.Second

// refVerify judges a compact JWS (RFC 7515) carrying JWT claims (RFC 7519,
// RFC 9068) as the server's configuration asks: a header that is a JSON
// object whose alg is pinned (RS256, ES256, EdDSA), no crit, a typ (when
// present) of JWT or at+jwt, a kid (when present) naming a trusted key of
// that algorithm, a signature that verifies with that key (or, without a
// kid, with some trusted key of the algorithm); claims that are a JSON
// object with the issuer, the audience (a string or a list holding it),
// exp and the optional nbf as NumericDates between 0 and 1e11 with a 30 s
// leeway, a subject, and scope, groups and act claims of the documented
// shapes, every name of them non-empty, at most 256 bytes and free of
// control and format characters. It uses only the standard library:
// encoding/base64, encoding/json, crypto/rsa, crypto/ecdsa (through ASN.1,
// not the server's r||s path) and crypto/ed25519.
func refVerify(token string, now time.Time) refVerdict {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return refVerdict{}
	}
	enc := base64.RawURLEncoding.Strict()
	hb, err1 := enc.DecodeString(parts[0])
	cb, err2 := enc.DecodeString(parts[1])
	sig, err3 := enc.DecodeString(parts[2])
	var hdr, claims map[string]any
	if err1 != nil || err2 != nil || err3 != nil || refJSON(hb, &hdr) != nil {
		return refVerdict{}
	}
	alg, _ := hdr["alg"].(string)
	if !slices.Contains([]string{"RS256", "ES256", "EdDSA"}, alg) {
		return refVerdict{}
	}
	if _, crit := hdr["crit"]; crit {
		return refVerdict{}
	}
	if typ, ok := hdr["typ"]; ok {
		s, _ := typ.(string)
		if !slices.Contains([]string{"jwt", "at+jwt", "application/at+jwt"}, strings.ToLower(s)) {
			return refVerdict{}
		}
	}
	var candidates []refKey
	keys := refKeys()
	if raw, ok := hdr["kid"]; ok {
		kid, _ := raw.(string)
		if k, ok := keys[kid]; ok && k.alg == alg {
			candidates = append(candidates, k)
		}
	} else {
		for _, k := range keys {
			if k.alg == alg {
				candidates = append(candidates, k)
			}
		}
	}
	signed := []byte(parts[0] + "." + parts[1])
	if !slices.ContainsFunc(candidates, func(k refKey) bool { return refSignature(k, signed, sig) }) {
		return refVerdict{}
	}
	if refJSON(cb, &claims) != nil {
		return refVerdict{}
	}
	return refClaims(claims, now)
}

// refJSON decodes one JSON object with numbers kept as text.
func refJSON(b []byte, v *map[string]any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if *v == nil {
		return strconv.ErrSyntax
	}
	if _, err := dec.Token(); err == nil {
		return strconv.ErrSyntax // trailing data
	}
	return nil
}

func refSignature(k refKey, signed, sig []byte) bool {
	digest := sha256.Sum256(signed)
	switch k.alg {
	case "RS256":
		return rsa.VerifyPKCS1v15(k.pub.(*rsa.PublicKey), crypto.SHA256, digest[:], sig) == nil
	case "ES256":
		if len(sig) != 64 {
			return false
		}
		der, err := asn1.Marshal(struct{ R, S *big.Int }{new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])})
		return err == nil && ecdsa.VerifyASN1(k.pub.(*ecdsa.PublicKey), digest[:], der)
	case "EdDSA":
		return ed25519.Verify(k.pub.(ed25519.PublicKey), signed, sig)
	}
	return false
}

func refClaims(c map[string]any, now time.Time) refVerdict {
	var v refVerdict
	if iss, _ := c["iss"].(string); iss != testIssuer {
		return v
	}
	switch aud := c["aud"].(type) {
	case string:
		if aud != testAudience {
			return v
		}
	case []any:
		if !slices.Contains(aud, any(testAudience)) {
			return v
		}
	default:
		return v
	}
	exp, ok := refDate(c["exp"])
	if !ok {
		return v
	}
	end := exp.Add(ClockLeeway)
	v.borderline = absDuration(now.Sub(end)) < refMargin
	if !now.Before(end) {
		return v
	}
	if raw, present := c["nbf"]; present {
		nbf, ok := refDate(raw)
		if !ok {
			return v
		}
		start := nbf.Add(-ClockLeeway)
		v.borderline = v.borderline || absDuration(now.Sub(start)) < refMargin
		if now.Before(start) {
			return v
		}
	}
	if !refName(c["sub"]) {
		return v
	}
	switch s := c["scope"].(type) {
	case nil:
	case string:
		v.scopes = strings.Fields(s)
	case []any:
		for _, x := range s {
			str, ok := x.(string)
			if !ok {
				return v
			}
			v.scopes = append(v.scopes, str)
		}
	default:
		return v
	}
	for _, s := range v.scopes {
		if !refName(s) {
			return v
		}
	}
	switch g := c["groups"].(type) {
	case nil:
	case string:
		if t := strings.TrimSpace(g); t != "" && !refName(t) {
			return v
		}
	case []any:
		if slices.ContainsFunc(g, func(x any) bool { return !refName(x) }) {
			return v
		}
	default:
		return v
	}
	act := c["act"]
	for depth := 0; act != nil; depth++ {
		obj, ok := act.(map[string]any)
		if depth == 8 || !ok || !refName(obj["sub"]) {
			return v
		}
		act = obj["act"]
	}
	v.valid = true
	return v
}

// refDate reads a NumericDate between 0 and 1e11 seconds.
func refDate(x any) (time.Time, bool) {
	n, ok := x.(json.Number)
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

func refName(x any) bool {
	s, ok := x.(string)
	return ok && s != "" && len(s) <= 256 && !strings.ContainsFunc(s, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) })
}

func absDuration(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// fuzzInbound is the inbound identity of the fuzz targets' servers: it
// trusts the reference's keys, read from a JWKS file, and maps the group
// finance to the audience finance.
func fuzzInbound(f *testing.F) *InboundConfig {
	path := filepath.Join(f.TempDir(), "jwks.json")
	set, err := json.Marshal(map[string]any{"keys": []map[string]any{jwkOf(f, "rsa-1"), jwkOf(f, "ec-1"), jwkOf(f, "ed-1")}})
	if err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(path, set, 0o600); err != nil {
		f.Fatal(err)
	}
	return &InboundConfig{Issuer: testIssuer, Audience: testAudience, JWKSFile: path,
		Algorithms: []string{RS256, ES256, EdDSA}, AudienceMapping: map[string][]string{"finance": {"finance"}}}
}

// unlimited is a rate limit no fuzz target reaches: the targets send from
// one address as fast as they can.
var unlimited = RateLimit{PerSecond: 1e9, Burst: 1 << 30}

// jwtFuzzHandler is the handler of a server with fuzzInbound's identity.
func jwtFuzzHandler(f *testing.F) http.Handler {
	e := newEnv(f, newFake(), envConfig{quiet: true, cfg: Config{Inbound: fuzzInbound(f), RateLimit: unlimited}})
	return e.server.Handler()
}

// serverAccepts presents token to GET /v1/catalog through h: 401 is a
// refused token, 200 or 403 insufficient_scope an accepted one. It fails
// the test on any other answer.
func serverAccepts(t *testing.T, h http.Handler, token string) (accepted bool, status int) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "/v1/catalog", nil)
	req.Host = "127.0.0.1"
	req.Header.Set("Authorization", "Bearer "+token)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var body struct{ Code FailureCode }
	switch _ = json.Unmarshal(rec.Body.Bytes(), &body); {
	case rec.Code == http.StatusOK:
		return true, rec.Code
	case rec.Code == http.StatusForbidden && body.Code == InsufficientScope:
		return true, rec.Code
	case rec.Code == http.StatusUnauthorized && body.Code == Unauthorized:
		return false, rec.Code
	}
	t.Fatalf("a token got %d %s", rec.Code, rec.Body.Bytes())
	return false, 0
}

// headerSafe reports whether token can travel in an HTTP header field at
// all; a real server never hands the handler anything else.
func headerSafe(token string) bool {
	return !strings.ContainsFunc(token, func(r rune) bool { return r < 0x20 || r == 0x7f }) && strings.TrimSpace(token) == token && token != ""
}

// fuzzKids are the keys a fuzz input may sign with: the three trusted
// ones and rsa-2, which the server does not know.
var fuzzKids = []string{"rsa-1", "ec-1", "ed-1", "rsa-2"}

// kidAlg is the algorithm of a test key.
func kidAlg(kid string) string {
	switch kid[:2] {
	case "ec":
		return ES256
	case "ed":
		return EdDSA
	}
	return RS256
}

// FuzzJWTValid builds well-formed tokens from its inputs: claims written
// by encoding/json from a subject, space-separated scopes, comma-separated
// groups and exp and nbf offsets from now, under a header naming (or not)
// the kid and a typ, signed by one of the four keys; flags move the
// issuer, the audience and the algorithm away from what the server pins.
// Its property: the server never panics, accepts exactly the tokens the
// reference (refVerify) accepts, all of them (only borderline times are
// left out), and for an accepted token grants the catalogue exactly when
// the reference finds sutura:catalog.read among its scopes.
//
// Seeds live in testdata/fuzz/FuzzJWTValid.
func FuzzJWTValid(f *testing.F) {
	h := jwtFuzzHandler(f)
	f.Fuzz(func(t *testing.T, key uint8, sub, scopes, groups string, expIn, nbfIn int32, flags uint8) {
		kid := fuzzKids[int(key)%len(fuzzKids)]
		now := time.Now()
		claims := map[string]any{"iss": testIssuer, "aud": testAudience, "sub": sub, "iat": now.Unix(), "exp": now.Unix() + int64(expIn)}
		if flags&1 != 0 {
			claims["iss"] = testIssuer + "other/"
		}
		switch flags >> 1 & 3 {
		case 1:
			claims["aud"] = []string{"someone-else", testAudience}
		case 2:
			claims["aud"] = "someone-else"
		}
		if flags&8 != 0 {
			claims["nbf"] = now.Unix() + int64(nbfIn)
		}
		if scopes != "" {
			claims["scope"] = scopes
		}
		if groups != "" {
			claims["groups"] = strings.Split(groups, ",")
		}
		header := map[string]any{"alg": kidAlg(kid)}
		if flags&16 == 0 {
			header["kid"] = kid
		}
		switch flags >> 5 & 3 {
		case 1:
			header["typ"] = "JWT"
		case 2:
			header["typ"] = "at+jwt"
		case 3:
			header["alg"] = kidAlg(fuzzKids[(int(key)+1)%len(fuzzKids)]) // signed by one key, claiming another algorithm
		}
		token := mintHeader(t, header, claims, kid)
		want := refVerify(token, now)
		got, status := serverAccepts(t, h, token)
		if want.borderline {
			return
		}
		if got != want.valid {
			t.Fatalf("the server says accepted=%v (%d), the reference says valid=%v\nheader %v\nclaims %v", got, status, want.valid, header, claims)
		}
		if got && (status == http.StatusOK) != slices.Contains(want.scopes, scopeCatalog) {
			t.Fatalf("an accepted token with scopes %q got %d on the catalogue", want.scopes, status)
		}
	})
}

// FuzzJWTForged signs arbitrary header and claims bytes with one of the
// four keys ("@NOW@", "@EXP@" and "@PAST@" in them become now, now + 5
// minutes and an hour ago, in seconds) and then damages the token as
// mutation says: each pair of bytes (op, at) flips a bit, drops or
// doubles a byte, cuts the token short, swaps two of its segments, or
// replaces the signature with one by another key. Its property: the
// server never panics and never accepts a token the reference (refVerify)
// rejects; header and claims it accepts are exactly what was signed.
//
// Seeds live in testdata/fuzz/FuzzJWTForged.
func FuzzJWTForged(f *testing.F) {
	h := jwtFuzzHandler(f)
	f.Fuzz(func(t *testing.T, key uint8, header, claims, mutation []byte) {
		if len(header)+len(claims) > 8<<10 || len(mutation) > 64 {
			return
		}
		kid := fuzzKids[int(key)%len(fuzzKids)]
		now := time.Now()
		r := strings.NewReplacer("@NOW@", strconv.FormatInt(now.Unix(), 10), "@EXP@", strconv.FormatInt(now.Unix()+300, 10),
			"@PAST@", strconv.FormatInt(now.Unix()-3600, 10))
		input := b64u([]byte(r.Replace(string(header)))) + "." + b64u([]byte(r.Replace(string(claims))))
		token := []byte(input + "." + b64u(sign(t, kid, []byte(input))))
		for i := 0; i+1 < len(mutation); i += 2 {
			token = damage(t, token, mutation[i], int(mutation[i+1]))
		}
		tok := string(token)
		if !headerSafe(tok) || len(tok) > 32<<10 {
			return
		}
		want := refVerify(tok, now)
		if got, status := serverAccepts(t, h, tok); got && !want.valid && !want.borderline {
			t.Fatalf("the server accepted (%d) a token the reference rejects: %q", status, tok)
		}
	})
}

// damage applies one mutation to a token.
func damage(t *testing.T, token []byte, op byte, at int) []byte {
	if len(token) == 0 {
		return token
	}
	i := at % len(token)
	switch op % 6 {
	case 0:
		token[i] ^= 1 << (op >> 3 & 7)
	case 1:
		token = slices.Delete(token, i, i+1)
	case 2:
		token = slices.Insert(token, i, token[i])
	case 3:
		token = token[:i]
	case 4:
		parts := bytes.Split(token, []byte("."))
		if len(parts) > 1 {
			a, b := int(op>>3)%len(parts), at%len(parts)
			parts[a], parts[b] = parts[b], parts[a]
		}
		token = bytes.Join(parts, []byte("."))
	case 5:
		parts := bytes.Split(token, []byte("."))
		if len(parts) == 3 {
			other := fuzzKids[at%len(fuzzKids)]
			input := string(parts[0]) + "." + string(parts[1])
			parts[2] = []byte(b64u(sign(t, other, []byte(input))))
		}
		token = bytes.Join(parts, []byte("."))
	}
	return token
}

// FuzzJWKS feeds a key set document to the parser the server reads its
// JWKS file and URL with. Its property: it never panics; its error is one
// of its two fixed sentences (it never quotes the document); and every
// key it returns is one the document holds, usable as RFC 7517/7518/8037
// say, read with the standard library: an RSA key of at least 2048 bits
// with an odd exponent of at least 3 (RS256), a P-256 point on the curve
// (ES256) or a 32-byte Ed25519 key (EdDSA), for signatures ("use" absent
// or "sig"), with "alg" absent or that algorithm, carrying the document's
// kid.
//
// Seeds live in testdata/fuzz/FuzzJWKS.
func FuzzJWKS(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		keys, err := parseJWKS(data)
		if err != nil {
			if msg := err.Error(); msg != "the key set is not a JSON Web Key Set" &&
				!(strings.HasPrefix(msg, "the key set holds no usable signature key (") && strings.HasSuffix(msg, " keys read)")) {
				t.Fatalf("an error that is not one of the fixed sentences: %q", msg)
			}
			return
		}
		var doc map[string]json.RawMessage
		var set []json.RawMessage
		if json.Unmarshal(data, &doc) != nil || json.Unmarshal(doc["keys"], &set) != nil {
			t.Fatalf("%d keys read from a document without a \"keys\" list", len(keys))
		}
		var jwks []map[string]any
		for _, raw := range set {
			var m map[string]any
			if json.Unmarshal(raw, &m) == nil {
				jwks = append(jwks, m)
			}
		}
		if len(keys) == 0 || len(keys) > len(jwks) {
			t.Fatalf("%d keys from a set of %d", len(keys), len(jwks))
		}
		for _, k := range keys {
			if !slices.ContainsFunc(jwks, func(raw map[string]any) bool { return jwkHolds(raw, k) }) {
				t.Fatalf("key %+v (kid %q) is not a usable key of the document", k.key, k.kid)
			}
		}
	})
}

// jwkHolds reports whether the JWK raw is a usable signature key and k is
// that key, read independently of the parser.
func jwkHolds(raw map[string]any, k jwk) bool {
	str := func(name string) string { s, _ := raw[name].(string); return s }
	dec := func(name string) []byte {
		b, err := base64.RawURLEncoding.Strict().DecodeString(str(name))
		if err != nil {
			return nil
		}
		return b
	}
	if kid, _ := raw["kid"].(string); kid != k.kid {
		return false
	}
	if use := str("use"); use != "" && use != "sig" {
		return false
	}
	if alg := str("alg"); alg != "" && alg != k.alg {
		return false
	}
	switch k.alg {
	case RS256:
		pub, ok := k.key.(*rsa.PublicKey)
		n, e := new(big.Int).SetBytes(dec("n")), new(big.Int).SetBytes(dec("e"))
		return ok && str("kty") == "RSA" && len(dec("n")) > 0 && n.Cmp(pub.N) == 0 && e.IsInt64() && int64(pub.E) == e.Int64() &&
			pub.N.BitLen() >= 2048 && pub.E >= 3 && pub.E%2 == 1
	case ES256:
		pub, ok := k.key.(*ecdsa.PublicKey)
		if !ok || str("kty") != "EC" || str("crv") != "P-256" {
			return false
		}
		b, err := pub.Bytes()
		return err == nil && len(b) == 65 && bytes.Equal(b[1:33], dec("x")) && bytes.Equal(b[33:], dec("y"))
	case EdDSA:
		pub, ok := k.key.(ed25519.PublicKey)
		return ok && str("kty") == "OKP" && str("crv") == "Ed25519" && len(pub) == ed25519.PublicKeySize && bytes.Equal(pub, dec("x"))
	}
	return false
}
