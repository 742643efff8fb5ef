package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
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
// product.md §6: rate limit, Host allowlist, deployment bearer token,
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
	public := func(h http.Handler) http.Handler { return s.rateLimit(s.hostAllow(h)) }
	gated := func(c domain.Capability, body bool, h http.Handler) http.Handler {
		if body {
			h = s.bodyLimit(h)
		}
		return public(s.accessToken(s.identity(s.capability(c, h))))
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
	handle("GET /v1/catalog", gated(domain.DescribeCatalog, false, http.HandlerFunc(s.catalog)))
	handle("POST /v1/query", gated(domain.AskMetric, true, http.HandlerFunc(s.query)))
	handle("POST /v1/sql/run", gated(domain.RunSQL, true, http.HandlerFunc(s.runSQL)))
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

func (s *Server) ready(w http.ResponseWriter, _ *http.Request) {
	if s.cfg.Ready != nil && !s.cfg.Ready() {
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

// catalog serves describe_catalog: the catalogue as the caller may see it.
func (s *Server) catalog(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.cfg.Surface.DescribeCatalog(CallerFrom(r.Context())))
}

// runSQL serves run_sql when the tool list holds it (the capability gate
// answers 403 tool_not_enabled otherwise): parse {statement} strictly, run
// it under the request's deadline, render the rows without provenance. The
// statement is never logged nor echoed: it is in the audit record only.
func (s *Server) runSQL(w http.ResponseWriter, r *http.Request) {
	if _, ok := s.tools[domain.RunSQL]; !ok {
		writeFailure(w, ToolNotEnabled, "the tool run_sql is not enabled on this deployment")
		return
	}
	body, ok := jsonBody(w, r)
	if !ok {
		return
	}
	statement, err := wire.ParseRunSQLArgs(body)
	if err != nil {
		var fe *domain.FieldError
		detail := "the body is not a statement"
		if errors.As(err, &fe) {
			detail = "the body is not a statement: " + fe.Error()
		}
		writeFailure(w, NotAQuestion, detail)
		return
	}
	caller := CallerFrom(r.Context())
	out, err := s.cfg.Surface.RunSQL(r.Context(), caller, statement)
	if err != nil {
		s.failure(w, caller, "run_sql", err)
		return
	}
	if out.Refusal != nil {
		writeOutcome(w, domain.Refused(*out.Refusal))
		return
	}
	content, err := wire.SQLContent(out)
	if err != nil {
		writeFailure(w, Internal, wire.TextInternal)
		return
	}
	writeBytes(w, http.StatusOK, "application/json", content)
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

// query serves ask_metric: parse the question, answer it under the
// request's deadline, render the outcome.
func (s *Server) query(w http.ResponseWriter, r *http.Request) {
	body, ok := jsonBody(w, r)
	if !ok {
		return
	}
	q, err := domain.ParseQuestion(body)
	if err != nil {
		var fe *domain.FieldError
		detail := "the body is not a question"
		if errors.As(err, &fe) {
			detail = "the body is not a question: " + fe.Error()
		}
		writeFailure(w, NotAQuestion, detail)
		return
	}
	caller := CallerFrom(r.Context())
	out, err := s.cfg.Surface.Answer(r.Context(), caller, q)
	if err != nil {
		s.failure(w, caller, "ask_metric", err)
		return
	}
	writeOutcome(w, out)
}

// budgetRetrySeconds is the Retry-After of budget_exhausted, which carries
// no window of its own yet.
const budgetRetrySeconds = 60

// writeOutcome writes an answer (200) or a refusal at its code's status.
func writeOutcome(w http.ResponseWriter, out domain.Outcome) {
	if r := out.Refusal; r != nil {
		if r.Code() == domain.BudgetExhausted {
			w.Header().Set("Retry-After", strconv.Itoa(budgetRetrySeconds))
		}
		writeJSON(w, r.Status(), struct {
			Outcome string         `json:"outcome"`
			Reason  json.Marshaler `json:"reason"`
		}{"refusal", r.WithStatus()})
		return
	}
	body, err := out.MarshalJSON()
	if err != nil {
		writeFailure(w, Internal, wire.TextInternal)
		return
	}
	writeBytes(w, http.StatusOK, "application/json", body)
}

// failure writes a failure of Surface.Answer or Surface.RunSQL with its
// fixed sentence (wire.FailureOf, as every transport does); the error
// itself goes only to the log. A caller that went away gets nothing: the
// work was cancelled and nobody is waiting. A run_sql statement the
// database failed is 400 not_a_question: the body is not a statement the
// database can run.
func (s *Server) failure(w http.ResponseWriter, caller app.Caller, tool string, err error) {
	f, ok := wire.FailureOf(err)
	if !ok {
		return
	}
	if f.Report {
		s.log.Warn("http: "+tool+" failed", "correlation_id", caller.CorrelationID, "error", err)
	}
	code := FailureCode(f.Code)
	if f.Code == wire.CodeStatementFailed {
		code = NotAQuestion
	}
	if code == AtCapacity {
		writeRetry(w, code, 1, f.Text)
		return
	}
	writeFailure(w, code, f.Text)
}
