package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"

	"sutura.dev/app"
	"sutura.dev/app/wire"
	"sutura.dev/domain"
)

// routes is the route table. Each route names itself (the label of its
// metrics) and wears the layers its class needs, in the order of
// docs/contract.md §6: rate limit, Host allowlist, deployment bearer token,
// inbound identity, capability gate, body limit. Probes wear none.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	s.methods = map[string][]string{}
	handle := func(pattern string, h http.Handler) {
		method, path, _ := strings.Cut(pattern, " ")
		if path == "" {
			method, path = "*", method
		}
		s.methods[path] = append(s.methods[path], method)
		mux.Handle(pattern, named(pattern, h))
	}
	public := func(h http.Handler) http.Handler { return s.rateLimit(false, s.hostAllow(h)) }
	gated := func(c domain.Capability, body bool, h http.Handler) http.Handler {
		if body {
			h = s.bodyLimit(h)
		}
		return s.rateLimit(true, s.hostAllow(s.accessToken(s.identity(s.capability(c, h)))))
	}

	handle("GET /health", http.HandlerFunc(health))
	handle("GET /ready", http.HandlerFunc(s.ready))
	handle("GET /openapi.json", public(http.HandlerFunc(s.serveOpenAPI)))
	handle("GET /docs", public(http.HandlerFunc(s.serveDocs)))
	handle("GET "+UIPath, public(http.HandlerFunc(s.serveUI)))
	mux.Handle("GET /{$}", named("GET /", public(http.HandlerFunc(redirectToUI))))
	if s.metricsHash != nil {
		handle("GET /metrics", public(s.metricsToken(s.metrics.handler())))
	}
	handle("GET /v1/catalog", gated(domain.DescribeCatalog, false, s.describe()))
	handle("POST /v1/query", gated(domain.AskMetric, true, s.call(domain.AskMetric)))
	handle("POST /v1/sql/run", gated(domain.RunSQL, true, s.call(domain.RunSQL)))
	if s.cfg.MCP != nil {
		handle("/mcp", gated("", true, s.cfg.MCP))
	}
	if s.verifier != nil {
		handle("GET "+ResourceMetadataPath, public(http.HandlerFunc(s.resourceMetadata)))
		if s.cfg.MCP != nil {
			handle("GET "+ResourceMetadataPath+"/mcp", public(http.HandlerFunc(s.resourceMetadata)))
		}
	}
	notFound := public(http.HandlerFunc(s.fallback))
	mux.Handle("/", notFound)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// http.ServeMux answers a path that is not canonical (//, . or ..
		// segments) with a redirect to the cleaned path, before any layer
		// and quoting the path back. No route has such a path.
		if r.URL.Path != cleanPath(r.URL.Path) {
			notFound.ServeHTTP(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// cleanPath is the canonical form of a request path, as http.ServeMux
// computes it: rooted, without //, . or .. segments, keeping a trailing
// slash.
func cleanPath(p string) string {
	if p == "" || p[0] != '/' {
		p = "/" + p
	}
	np := path.Clean(p)
	if p[len(p)-1] == '/' && np != "/" {
		np += "/"
	}
	return np
}

// named records the route's pattern for the outer layers.
func named(pattern string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stateOf(r.Context()).route = pattern
		h.ServeHTTP(w, r)
	})
}

// fallback answers a path outside the route table (404), or a known path
// asked with another method (405).
func (s *Server) fallback(w http.ResponseWriter, r *http.Request) {
	methods, ok := s.methods[r.URL.Path]
	if !ok {
		writeFailure(w, NotFound, "there is nothing at this path; the routes are listed at /openapi.json")
		return
	}
	allow := slices.Clone(methods)
	if slices.Contains(allow, http.MethodGet) {
		allow = append(allow, http.MethodHead)
	}
	w.Header().Set("Allow", strings.Join(allow, ", "))
	writeFailure(w, MethodNotAllowed, "this path does not take this method")
}

func health(w http.ResponseWriter, _ *http.Request) {
	writeBytes(w, http.StatusOK, "application/json", []byte(`{"status":"ok"}`))
}

func (s *Server) ready(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Ready != nil && !s.cfg.Ready() {
		writeFailure(w, Unavailable, textNotReady)
		return
	}
	// The surface cannot answer while its audit sink cannot be written.
	var f *app.Failure
	if err := s.cfg.Surface.Ready(r.Context()); errors.As(err, &f) {
		writeFailure(w, Unavailable, f.Detail)
		return
	} else if err != nil {
		writeFailure(w, Unavailable, textNotReady)
		return
	}
	writeBytes(w, http.StatusOK, "application/json", []byte(`{"status":"ready"}`))
}

func (s *Server) serveOpenAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Cache-Control", "no-cache")
	writeBytes(w, http.StatusOK, "application/json", s.openapi)
}

func (s *Server) serveDocs(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Content-Security-Policy", docsCSP)
	w.Header().Set("Referrer-Policy", "no-referrer")
	writeBytes(w, http.StatusOK, "text/html; charset=utf-8", s.docs)
}

func (s *Server) resourceMetadata(w http.ResponseWriter, r *http.Request) {
	res := s.resource(r)
	if strings.HasSuffix(r.URL.Path, "/mcp") {
		res += "/mcp"
	}
	w.Header().Set("Cache-Control", "max-age=300")
	writeJSON(w, http.StatusOK, resourceMetadataWire{
		Resource: res, AuthorizationServers: []string{s.cfg.Inbound.Issuer}, ScopesSupported: s.scopes,
		BearerMethodsSupported: []string{"header"}, ResourceName: "sutura", ResourceDocumentation: s.resource(r) + "/docs",
	})
}

// call serves one capability: it decodes the request into the surface's
// one call (the caller the gates established, the capability of the route,
// the body as the arguments; GET takes none) and encodes the result. The
// surface decides everything else, for every transport alike.
func (s *Server) call(c domain.Capability) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var args []byte
		if r.Method == http.MethodPost {
			body, ok := jsonBody(w, r)
			if !ok {
				return
			}
			args = body
		}
		writeResult(w, s.cfg.Surface.Call(r.Context(), gatedCaller(r.Context()), c, args))
	})
}

// describe serves GET /v1/catalog: its query parameters search, metrics
// (comma-separated or repeated) and cursor are the arguments of
// describe_catalog (docs/contract.md §14), read by the surface like any
// transport's. A parameter given twice, or one that is not a parameter,
// is passed on as such, so the surface names it (never its value).
func (s *Server) describe() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		args, ok := describeArgs(r.URL.RawQuery)
		if !ok {
			writeFailure(w, NotAQuestion, "the query is not a catalogue request: it could not be read as parameters")
			return
		}
		writeResult(w, s.cfg.Surface.Call(r.Context(), gatedCaller(r.Context()), domain.DescribeCatalog, args))
	})
}

// describeArgs is the JSON object of describe_catalog's arguments that a
// query string carries, its members in the query's order.
func describeArgs(rawQuery string) ([]byte, bool) {
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return nil, false
	}
	keys := slices.Sorted(maps.Keys(q))
	var b bytes.Buffer
	b.WriteByte('{')
	member := func(k string, v any) {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		vb, _ := json.Marshal(v)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	for _, k := range keys {
		if k == "metrics" {
			names := []string{}
			for _, v := range q[k] {
				names = append(names, strings.Split(v, ",")...)
			}
			member(k, names)
			continue
		}
		for _, v := range q[k] {
			member(k, v)
		}
	}
	b.WriteByte('}')
	return b.Bytes(), true
}

// writeResult encodes a result: 200 with its content (wire.Content, the
// bytes every transport returns), a refusal at its code's status, or a
// failure body. A caller that went away gets nothing: the work was
// cancelled and nobody is waiting.
func writeResult(w http.ResponseWriter, res app.Result) {
	switch {
	case res.Failure != nil:
		writeCallFailure(w, res.Capability, res.Failure)
	case res.Refusal != nil:
		writeRefusal(w, *res.Refusal)
	default:
		body, err := wire.Content(res)
		if err != nil {
			writeFailure(w, Internal, app.TextInternal)
			return
		}
		writeBytes(w, http.StatusOK, "application/json", body)
	}
}

// writeCallFailure writes a failure of a call with the surface's sentence;
// arguments that are not a call are worded for a body. The error itself
// went to the surface's log only.
func writeCallFailure(w http.ResponseWriter, c domain.Capability, f *app.Failure) {
	switch f.Code {
	case app.CodeCancelled:
		return
	case NotAQuestion:
		what := "question"
		if c == domain.RunSQL {
			what = "statement"
		}
		detail := "the body is not a " + what
		if c == domain.DescribeCatalog {
			detail = "the query is not a catalogue request"
		}
		var fe *domain.FieldError
		if errors.As(f, &fe) {
			detail += ": " + fe.Error()
		}
		writeFailure(w, NotAQuestion, detail)
	case AtCapacity:
		writeRetry(w, AtCapacity, 1, f.Detail)
	default:
		writeFailure(w, f.Code, f.Detail)
	}
}

// jsonBody reads a JSON request body, or writes not_a_question: a form or
// text/plain body is what a cross-site page can send without a preflight.
func jsonBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			writeFailure(w, NotAQuestion, "the body must be sent as Content-Type: application/json")
			return nil, false
		}
	}
	body, err := io.ReadAll(r.Body) // in memory: bodyLimit read it
	if err != nil {
		writeFailure(w, NotAQuestion, "the request body could not be read")
		return nil, false
	}
	return body, true
}

// writeRefusal writes a refusal at its code's status, with the status in
// its reason.
func writeRefusal(w http.ResponseWriter, r domain.Reason) {
	if secs := r.RetryAfterSeconds(); secs > 0 {
		// budget_exhausted: until enough of the caller's window has passed.
		w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
	}
	writeJSON(w, r.Status(), struct {
		Outcome string         `json:"outcome"`
		Reason  json.Marshaler `json:"reason"`
	}{"refusal", r.WithStatus()})
}
