package httpapi

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"sutura.dev/app"
	"sutura.dev/app/apptest"
	"sutura.dev/domain"
)

// fuzzAccessToken is the deployment token of the access-token server.
const fuzzAccessToken = "fuzz-deployment-token-5b1e"

// maxReplyBytes bounds every reply of the fuzz targets' servers: the
// largest is the OpenAPI document; an answer over the fake data system is
// a few rows.
const maxReplyBytes = 1 << 20

// httpFuzzServer is one server the target sends to, with the credential
// that passes its gates.
type httpFuzzServer struct {
	env        *env
	credential func() string
}

// freshToken mints an EdDSA token for the inbound server and mints it
// again when it has less than half of its hour left.
type freshToken struct {
	mu    sync.Mutex
	tok   string
	until time.Time
}

func (f *freshToken) get() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if time.Now().After(f.until) {
		now := time.Now().Unix()
		claims := map[string]any{"iss": testIssuer, "aud": testAudience, "sub": "fuzz", "iat": now, "exp": now + 3600,
			"scope": strings.Join([]string{scopeCatalog, scopeAsk}, " "), "groups": []string{"finance"}}
		h, _ := json.Marshal(map[string]any{"alg": EdDSA, "kid": "ed-1", "typ": "JWT"})
		c, _ := json.Marshal(claims)
		input := b64u(h) + "." + b64u(c)
		f.tok = input + "." + b64u(ed25519.Sign(testKeys().ed, []byte(input)))
		f.until = time.Now().Add(30 * time.Minute)
	}
	return f.tok
}

// httpProbe is one request of the target.
type httpProbe struct {
	method, path, host string
	header             map[string]string
	body               []byte
}

// FuzzHTTPRequest sends requests through the real handler over a loopback
// socket to two servers on the apptest demo catalogue: one with a
// deployment access token (single-user, run_sql enabled, an allowed host
// besides loopback) and one with inbound JWT identity. The fuzzer chooses
// the server, the method, the path, the Authorization, Host and
// Content-Type headers and the body; in all of them "@TOKEN@" becomes the
// credential that passes the server's gates and "@C@" becomes the canary
// (in the body, JSON-escaped). A canary the responses could not hold by
// chance is also planted on its own: as a filter value, a metric name, an
// unknown key, a grain and a date of a question, as a bearer token, as
// the Host (whole and as a port), as a Content-Type and its parameter, and
// in the path and query.
//
// Its property, for every request a conforming client can send (a valid
// method, header values and Host, a request target without spaces or
// control characters):
//   - the server answers (no panic, no dropped connection);
//   - the status is 200, the one redirect (302 from GET / to UIPath, the
//     catalogue browser), or the status of a failure code (FailureCodes)
//     or refusal code (domain.Codes); any other body is exactly a failure
//     {code, status, detail} or a refusal {outcome, reason {code, status,
//     detail}} whose status is the response's;
//   - no 5xx but at_capacity, unavailable and identity_unavailable (the
//     documented ones; a fake data system never fails, so internal is a
//     defect);
//   - no response body or header holds the canary, raw or JSON-escaped,
//     in any letter case, unless the reply to the same request with
//     another canary in its place holds it too (text the server sends
//     whatever the request, such as a script of the catalogue browser);
//   - every body is at most 1 MiB.
//
// Seeds live in testdata/fuzz/FuzzHTTPRequest; a finding is committed
// there with its fix.
func FuzzHTTPRequest(f *testing.F) {
	jwt := &freshToken{}
	servers := []httpFuzzServer{
		{env: newEnv(f, newFake(), envConfig{quiet: true, sql: &apptest.SQL{}, cfg: Config{
			AccessToken: []byte(fuzzAccessToken), Tools: app.Tools(app.ToolOptions{RunSQL: true}),
			AllowedHosts: []string{"metrics.example.com", "10.0.0.7:8443"}, RateLimit: unlimited,
		}}), credential: func() string { return fuzzAccessToken }},
		{env: newEnv(f, newFake(), envConfig{quiet: true, cfg: Config{Inbound: fuzzInbound(f), RateLimit: unlimited}}),
			credential: jwt.get},
	}
	// The client follows no redirect: the reply under test is the server's.
	client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 4, DisableCompression: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	// Text the servers send whatever the request: a canary found in it is
	// no echo.
	var static strings.Builder
	for _, s := range servers {
		for _, path := range []string{"/openapi.json", "/docs", "/v1/catalog", ResourceMetadataPath, UIPath} {
			r, _ := fuzzSend(client, s.env, httpProbe{method: http.MethodGet, path: path, host: "127.0.0.1",
				header: map[string]string{"Authorization": "Bearer " + s.credential()}})
			static.WriteString(strings.ToLower(string(r.body)))
		}
	}
	planted := &seen{}
	f.Fuzz(func(t *testing.T, server uint8, method, path, authorization, host, contentType string, body []byte, canary string) {
		s := servers[int(server)%len(servers)]
		if !distinctive(canary) || strings.Contains(static.String(), strings.ToLower(canary)) {
			canary = "zz"
		}
		lit, _ := json.Marshal(canary)
		inText := strings.NewReplacer("@TOKEN@", s.credential(), "@C@", canary)
		inBody := strings.NewReplacer("@TOKEN@", s.credential(), "@C@", string(lit[1:len(lit)-1]))
		p := httpProbe{method: method, path: inText.Replace(path), host: inText.Replace(host), body: []byte(inBody.Replace(string(body))),
			header: map[string]string{"Authorization": inText.Replace(authorization), "Content-Type": inText.Replace(contentType)}}
		probes := []httpProbe{p}
		if canary != "zz" && planted.first(int(server)%len(servers), canary) {
			probes = append(probes, plants(s.credential(), canary, string(lit[1:len(lit)-1]))...)
		}
		send := func(p httpProbe) (reply, bool) { return fuzzSend(client, s.env, p) }
		for _, p := range probes {
			r, ok := send(p)
			if !ok {
				continue
			}
			checkReply(t, p, r, canary, send)
		}
	})
}

// seen remembers the canaries already planted on each server, so the
// fixed plants are sent once per canary while the fuzzer varies the rest
// of the request. It forgets everything when it holds 4096.
type seen struct{ m map[string]bool }

func (s *seen) first(server int, canary string) bool {
	key := string(rune('0'+server)) + canary
	if s.m[key] {
		return false
	}
	if s.m == nil || len(s.m) == 4096 {
		s.m = map[string]bool{}
	}
	s.m[key] = true
	return true
}

// plants are the requests that carry the canary in one place each, with
// the credential in Authorization everywhere else.
func plants(credential, canary, inJSON string) []httpProbe {
	q := func(body string) httpProbe {
		return httpProbe{method: http.MethodPost, path: "/v1/query", host: "127.0.0.1", body: []byte(body),
			header: map[string]string{"Authorization": "Bearer " + credential, "Content-Type": "application/json"}}
	}
	const (
		metric = `"metrics":["revenue"],"grain":"month"`
		span   = `"range":{"start":"2025-01-01","end":"2025-03-01"}`
	)
	get := func(path, host, auth string) httpProbe {
		return httpProbe{method: http.MethodGet, path: path, host: host, header: map[string]string{"Authorization": auth}}
	}
	ct := func(contentType string) httpProbe {
		p := q(`{` + metric + `,` + span + `}`)
		p.header["Content-Type"] = contentType
		return p
	}
	return []httpProbe{
		q(`{` + metric + `,` + span + `,"filters":[{"op":"eq","dimension":"city","value":"` + inJSON + `"}]}`),
		q(`{` + metric + `,` + span + `,"filters":[{"op":"in","dimension":"city","values":["Berlin","` + inJSON + `"]}]}`),
		q(`{"metrics":["` + inJSON + `"],"grain":"month",` + span + `}`),
		q(`{` + metric + `,` + span + `,"` + inJSON + `":1}`),
		q(`{"metrics":["revenue"],"grain":"` + inJSON + `",` + span + `}`),
		q(`{` + metric + `,"range":{"start":"` + inJSON + `","end":"2025-03-01"}}`),
		q(`{` + metric + `,` + span + `,"dimensions":["` + inJSON + `"]}`),
		q(inJSON),
		get("/v1/catalog", "127.0.0.1", "Bearer "+canary),
		get("/v1/catalog", "127.0.0.1", canary),
		get("/v1/catalog", canary, "Bearer "+credential),
		get("/v1/catalog", "127.0.0.1:"+canary, "Bearer "+credential),
		get("/v1/catalog", "localhost:"+canary, ""),
		get("/v1/"+url.PathEscape(canary), "127.0.0.1", "Bearer "+credential),
		get("/v1/../"+url.PathEscape(canary), "127.0.0.1", "Bearer "+credential),
		get("/v1/catalog?q="+url.QueryEscape(canary), "127.0.0.1", "Bearer "+credential),
		ct("application/json; charset=" + canary),
		ct(canary),
	}
}

// fuzzSend sends p to e's server. It reports false when a conforming
// client cannot send p at all (an invalid method, header value, Host or
// URL), which a real server never sees either.
func fuzzSend(client *http.Client, e *env, p httpProbe) (reply, bool) {
	if p.path == "" || p.path[0] != '/' {
		p.path = "/" + p.path
	}
	if !validMethod(p.method) {
		return reply{}, false
	}
	u, err := url.Parse(e.srv.URL + p.path)
	if err != nil || u.Host != strings.TrimPrefix(e.srv.URL, "http://") || !validTarget(u.RequestURI()) {
		return reply{}, false
	}
	req, err := http.NewRequest(p.method, u.String(), bytes.NewReader(p.body))
	if err != nil {
		return reply{}, false
	}
	for k, v := range p.header {
		if v == "" {
			continue
		}
		if !validFieldValue(v) {
			return reply{}, false
		}
		req.Header.Set(k, v)
	}
	if p.host != "" {
		req.Host = p.host
	}
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) && strings.Contains(ue.Err.Error(), "invalid") {
			return reply{}, false
		}
		return reply{status: -1, body: []byte(err.Error())}, true
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxReplyBytes+1))
	if err != nil {
		return reply{status: -1, body: []byte(err.Error())}, true
	}
	return reply{status: resp.StatusCode, header: resp.Header, body: b}, true
}

// validTarget reports whether a request target holds no space or control
// character: Go's client sends a query as it is given, and a target with
// a space is a malformed request line that net/http answers itself,
// before any handler.
func validTarget(target string) bool {
	return !strings.ContainsFunc(target, func(r rune) bool { return r <= ' ' || r == 0x7f })
}

// validMethod reports whether m is an HTTP token (RFC 9110 §5.6.2).
func validMethod(m string) bool {
	return m != "" && !strings.ContainsFunc(m, func(r rune) bool {
		return r >= utf8.RuneSelf || !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", r))
	})
}

// validFieldValue reports whether v may travel as a header field value.
func validFieldValue(v string) bool {
	return !strings.ContainsFunc(v, func(r rune) bool { return (r < 0x20 && r != '\t') || r == 0x7f })
}

// distinctive reports whether a canary is one no response could hold by
// chance: at least six characters with one that is not a letter, digit,
// space or hyphen.
func distinctive(c string) bool {
	return utf8.RuneCountInString(c) >= 6 && utf8.ValidString(c) &&
		strings.ContainsFunc(c, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == ' ' || r == '-')
		})
}

// allowedStatuses are 200 and the statuses of every failure and refusal
// code.
var allowedStatuses = sync.OnceValue(func() []int {
	out := []int{http.StatusOK}
	for _, c := range FailureCodes() {
		out = append(out, c.Status())
	}
	for _, c := range domain.Codes() {
		out = append(out, c.Status())
	}
	return out
})

// checkReply asserts FuzzHTTPRequest's property of one reply; send
// sends another request to the same server.
func checkReply(t *testing.T, p httpProbe, r reply, canary string, send func(httpProbe) (reply, bool)) {
	t.Helper()
	at := func() string {
		return p.method + " " + p.path + " host=" + p.host + " headers=" + mustJSONText(p.header) + " body=" + mustJSONText(string(p.body))
	}
	if r.status == -1 {
		t.Fatalf("the server did not answer (%s): %s", r.body, at())
	}
	if len(r.body) > maxReplyBytes {
		t.Fatalf("a reply larger than %d bytes: %s", maxReplyBytes, at())
	}
	redirect := r.status == http.StatusFound && r.header.Get("Location") == UIPath
	if !slices.Contains(allowedStatuses(), r.status) && !redirect {
		t.Fatalf("status %d is no documented status: %s\n%s", r.status, at(), r.body)
	}
	if canary != "zz" && !namedAsIdentifier(r, canary) {
		if where, ok := echo(r, canary); ok {
			// Text the server sends whatever the request holds (a page, a
			// script) may hold the canary by chance: the same request with
			// another canary in its place tells.
			alt := altCanary(canary)
			if r2, sent := send(p.replace(canary, alt)); !sent || alt == canary || !contains(r2, canary) {
				t.Fatalf("the %s echoes the canary %q: %s\n%s", where, canary, at(), r.body)
			}
		}
	}
	if r.status == http.StatusOK || p.method == http.MethodHead || redirect {
		return
	}
	if r.status == http.StatusOK || p.method == http.MethodHead {
		return
	}
	var body struct {
		Code    FailureCode
		Status  int
		Detail  string
		Outcome string
		Reason  *struct {
			Code   domain.Code
			Status int
			Detail string
		}
	}
	if err := json.Unmarshal(r.body, &body); err != nil {
		t.Fatalf("a %d reply that is not JSON: %s\n%s", r.status, at(), r.body)
	}
	switch {
	case body.Outcome == "refusal" && body.Reason != nil:
		if !body.Reason.Code.Known() || body.Reason.Code.Status() != r.status || body.Reason.Status != r.status || body.Reason.Detail == "" {
			t.Fatalf("a malformed refusal with status %d: %s\n%s", r.status, at(), r.body)
		}
	case body.Code.Status() == r.status && body.Status == r.status && body.Detail != "":
		if r.status >= 500 && !slices.Contains([]FailureCode{AtCapacity, Unavailable, IdentityUnavailable}, body.Code) {
			t.Fatalf("an undocumented %d %s: %s\n%s", r.status, body.Code, at(), r.body)
		}
	default:
		t.Fatalf("a %d reply that is neither a failure nor a refusal: %s\n%s", r.status, at(), r.body)
	}
}

// namingCodes are the refusals whose detail names the metric or dimension
// a question asked for (docs/contract.md §4.3: a detail names the
// metric/dimension but never a caller-supplied value).
var namingCodes = []domain.Code{domain.MetricUnknown, domain.DuplicateMetricName, domain.DimensionNotPermitted,
	domain.DuplicateDimension, domain.DimensionNotFilterable}

// namedAsIdentifier reports whether the canary is an identifier that r
// names as the contract wants, which is no echo of a value
// (docs/contract.md §4.3 and §5: a detail names the metric, dimension or
// field, never a caller-supplied value; a name that is not an identifier
// is described, never quoted): a refusal naming a metric or dimension a
// question asked for, or a not_a_question failure naming an unknown field
// of it. A canary planted as a filter value, a grain or a date is still
// checked whatever its shape, as is any header.
func namedAsIdentifier(r reply, canary string) bool {
	if domain.CheckIdent(canary) != nil {
		return false
	}
	for _, where := range r.header {
		for _, v := range where {
			if strings.Contains(strings.ToLower(v), strings.ToLower(canary)) {
				return false
			}
		}
	}
	var body struct {
		Code    FailureCode
		Detail  string
		Outcome string
		Reason  *struct {
			Code   domain.Code
			Detail string
		}
	}
	if json.Unmarshal(r.body, &body) != nil {
		return false
	}
	if body.Outcome == "refusal" && body.Reason != nil {
		return slices.Contains(namingCodes, body.Reason.Code)
	}
	return body.Code == NotAQuestion && strings.Contains(body.Detail, canary+" is not a field of")
}

// canaryForms are the forms of a canary an echo may take: as written and
// JSON-escaped, lower-cased, since an echo is an echo in any case (a media
// type or a host name comes back lower-cased).
func canaryForms(canary string) []string {
	lit, _ := json.Marshal(canary)
	return []string{strings.ToLower(canary), strings.ToLower(string(lit[1 : len(lit)-1]))}
}

// echo reports where in r the canary is, if it is.
func echo(r reply, canary string) (where string, found bool) {
	body := bytes.ToLower(r.body)
	for _, form := range canaryForms(canary) {
		if bytes.Contains(body, []byte(form)) {
			return "body", true
		}
		for name, values := range r.header {
			if strings.Contains(strings.ToLower(name+": "+strings.Join(values, ", ")), form) {
				return "header " + name, true
			}
		}
	}
	return "", false
}

func contains(r reply, canary string) bool {
	_, found := echo(r, canary)
	return found
}

// altCanary is another canary of the same shape: letters rotated by 13,
// digits by 5, everything else kept.
func altCanary(c string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return 'a' + (r-'a'+13)%26
		case r >= 'A' && r <= 'Z':
			return 'A' + (r-'A'+13)%26
		case r >= '0' && r <= '9':
			return '0' + (r-'0'+5)%10
		}
		return r
	}, c)
}

// replace is p with every form of the canary old (as written, escaped for
// a path, a query or JSON) replaced by the same form of new.
func (p httpProbe) replace(old, new string) httpProbe {
	oldJSON, _ := json.Marshal(old)
	newJSON, _ := json.Marshal(new)
	r := strings.NewReplacer(old, new, url.PathEscape(old), url.PathEscape(new), url.QueryEscape(old), url.QueryEscape(new),
		string(oldJSON[1:len(oldJSON)-1]), string(newJSON[1:len(newJSON)-1]))
	out := httpProbe{method: p.method, path: r.Replace(p.path), host: r.Replace(p.host), body: []byte(r.Replace(string(p.body))),
		header: map[string]string{}}
	for k, v := range p.header {
		out.header[k] = r.Replace(v)
	}
	return out
}

func mustJSONText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
