package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"sutura.dev/app"
	"sutura.dev/domain"
)

// The OpenAPI 3.1 document is generated from the route table, the
// capability list and the Go wire types (wire.go); nothing of it is written
// by hand. The types below are the subset of the OpenAPI object model the
// document uses; the schemas are JSON Schema 2020-12, as OpenAPI 3.1 takes
// them.

type openAPI struct {
	OpenAPI    string               `json:"openapi"`
	Info       apiInfo              `json:"info"`
	Paths      map[string]*pathItem `json:"paths"`
	Components components           `json:"components"`
}

type apiInfo struct {
	Title       string `json:"title"`
	Summary     string `json:"summary"`
	Description string `json:"description"`
	Version     string `json:"version"`
}

type pathItem struct {
	Get  *operation `json:"get,omitempty"`
	Post *operation `json:"post,omitempty"`
}

type operation struct {
	OperationID string                `json:"operationId"`
	Summary     string                `json:"summary"`
	Description string                `json:"description,omitempty"`
	Tags        []string              `json:"tags"`
	Security    []map[string][]string `json:"security,omitempty"`
	Parameters  []parameter           `json:"parameters,omitempty"`
	RequestBody *requestBody          `json:"requestBody,omitempty"`
	Responses   map[string]*response  `json:"responses"`
	// Capability and Scope name the tool of the capability list this
	// operation serves, so a reader (and a test) can match the two.
	Capability domain.Capability `json:"x-sutura-capability,omitempty"`
	Scope      domain.Scope      `json:"x-sutura-scope,omitempty"`
}

// parameter is one query parameter of an operation.
type parameter struct {
	Name        string             `json:"name"`
	In          string             `json:"in"`
	Description string             `json:"description"`
	Required    bool               `json:"required"`
	Style       string             `json:"style,omitempty"`
	Explode     *bool              `json:"explode,omitempty"`
	Schema      *jsonschema.Schema `json:"schema"`
}

type requestBody struct {
	Description string               `json:"description,omitempty"`
	Required    bool                 `json:"required"`
	Content     map[string]mediaType `json:"content"`
}

type mediaType struct {
	Schema *jsonschema.Schema `json:"schema"`
}

type response struct {
	Description string               `json:"description"`
	Headers     map[string]*header   `json:"headers,omitempty"`
	Content     map[string]mediaType `json:"content,omitempty"`
}

type header struct {
	Description string             `json:"description"`
	Schema      *jsonschema.Schema `json:"schema"`
}

type components struct {
	Schemas         map[string]json.RawMessage `json:"schemas"`
	SecuritySchemes map[string]securityScheme  `json:"securitySchemes"`
}

type securityScheme struct {
	Type         string `json:"type"`
	Scheme       string `json:"scheme,omitempty"`
	BearerFormat string `json:"bearerFormat,omitempty"`
	In           string `json:"in,omitempty"`
	Name         string `json:"name,omitempty"`
	Description  string `json:"description"`
}

// Security scheme names.
const (
	schemeBearer      = "bearer"
	schemeAccessToken = "accessToken"
	schemeMetrics     = "metricsToken"
)

// documentOptions selects the routes a deployment serves.
type documentOptions struct {
	tools   []app.Tool
	mcp     bool // /mcp is mounted
	direct  bool // inbound identity in direct mode: the RFC 9728 route
	metrics bool // /metrics is served
}

// toolRoutes is where each capability is served over HTTP (docs/contract.md §6).
var toolRoutes = map[domain.Capability]struct{ method, path string }{
	domain.DescribeCatalog: {http.MethodGet, "/v1/catalog"},
	domain.AskMetric:       {http.MethodPost, "/v1/query"},
	domain.RunSQL:          {http.MethodPost, "/v1/sql/run"},
}

// encode returns the document as indented JSON ending in a newline.
func (d *openAPI) encode() ([]byte, error) {
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("httpapi: encoding the OpenAPI document: %w", err)
	}
	return append(b, '\n'), nil
}

// buildOpenAPI generates the document of a deployment.
func buildOpenAPI(o documentOptions) (*openAPI, error) {
	schemas, err := componentSchemas()
	if err != nil {
		return nil, fmt.Errorf("httpapi: generating schemas: %w", err)
	}
	doc := &openAPI{
		OpenAPI: "3.1.0",
		Info: apiInfo{
			Title:   "sutura",
			Summary: "A governed metrics server: certified questions in, rows with provenance or typed refusals out.",
			Description: "Every capability here is also served over MCP at /mcp when that is mounted. A refusal is an answer " +
				"about what may be asked, with a stable code and the HTTP status of its code; failures carry {code, status, detail}. " +
				"No body ever echoes a value the caller sent. The version is the tool manifest version.",
			Version: strconv.Itoa(app.ManifestVersion),
		},
		Paths: map[string]*pathItem{},
		Components: components{Schemas: schemas, SecuritySchemes: map[string]securityScheme{
			schemeBearer: {Type: "http", Scheme: "bearer", Description: "Authorization: Bearer. Without inbound identity, the deployment " +
				"access token (security.access_token_file); with security.inbound, the caller's JWT, whose scopes select the capabilities."},
			schemeAccessToken: {Type: "apiKey", In: "header", Name: AccessTokenHeader, Description: "With inbound identity, the deployment " +
				"access token travels in this header, since Authorization carries the caller's JWT."},
			schemeMetrics: {Type: "http", Scheme: "bearer", Description: "The token of /metrics (security.metrics_token_file)."},
		}},
	}
	for _, t := range o.tools {
		route, ok := toolRoutes[t.ID]
		if !ok {
			return nil, fmt.Errorf("httpapi: tool %s is declared but this build cannot serve it", t.ID)
		}
		if t.ID == domain.RunSQL {
			// Described only where served, so the document of a deployment
			// without run_sql does not change.
			if err := addRunSQLSchemas(doc.Components.Schemas); err != nil {
				return nil, fmt.Errorf("httpapi: generating schemas: %w", err)
			}
		}
		op := toolOperation(t)
		doc.add(route.method, route.path, op)
	}
	doc.add(http.MethodGet, "/health", &operation{OperationID: "health", Summary: "Liveness", Tags: []string{"operations"},
		Description: "Answers while the process serves HTTP. Not behind any gate.",
		Responses:   map[string]*response{"200": jsonResponse("The process is alive.", schemaHealth)}})
	doc.add(http.MethodGet, "/ready", &operation{OperationID: "ready", Summary: "Readiness", Tags: []string{"operations"},
		Description: "Ready once the catalogue is pinned, its anchors checked and every source open. Not behind any gate.",
		Responses: map[string]*response{"200": jsonResponse("Ready.", schemaReady),
			"503": jsonResponse("Not ready yet (unavailable).", schemaFailure)}})
	doc.add(http.MethodGet, "/openapi.json", &operation{OperationID: "openapi", Summary: "This document", Tags: []string{"documentation"},
		Responses: publicResponses(&response{Description: "The OpenAPI 3.1 document.", Content: map[string]mediaType{"application/json": {Schema: &jsonschema.Schema{Type: "object"}}}})})
	doc.add(http.MethodGet, "/docs", &operation{OperationID: "docs", Summary: "This document for people", Tags: []string{"documentation"},
		Responses: publicResponses(&response{Description: "A self-contained HTML page rendering this document.", Content: map[string]mediaType{"text/html": {Schema: &jsonschema.Schema{Type: "string"}}}})})
	doc.add(http.MethodGet, UIPath, &operation{OperationID: "ui", Summary: "The catalogue browser", Tags: []string{"documentation"},
		Description: "A page for people: the catalogue, a question builder, answers as tables and charts. It asks for the token and talks to /v1/catalog and /v1/query; every asset is served from here.",
		Responses:   publicResponses(&response{Description: "The page (or one of its assets).", Content: map[string]mediaType{"text/html": {Schema: &jsonschema.Schema{Type: "string"}}}})})
	if o.metrics {
		rs := publicResponses(&response{Description: "Prometheus text exposition.", Content: map[string]mediaType{"text/plain": {Schema: &jsonschema.Schema{Type: "string"}}}})
		rs["401"] = failureResponse(Unauthorized)
		doc.add(http.MethodGet, "/metrics", &operation{OperationID: "metrics", Summary: "Prometheus metrics", Tags: []string{"operations"},
			Description: "Requests by route and status, outcomes by code, admission, question latency, build info. No label holds a question, a value or an identity.",
			Security:    []map[string][]string{{schemeMetrics: {}}}, Responses: rs})
	}
	if o.mcp {
		var scopes []string
		for _, t := range o.tools {
			scopes = append(scopes, string(t.Scope))
		}
		op := &operation{OperationID: "mcp", Summary: "Model Context Protocol (Streamable HTTP)", Tags: []string{"agents"},
			Description: "The same capabilities as tools, stateless with JSON responses, behind the same gates as /v1. A caller needs the scope of at least one tool; " +
				"tools/call of a tool whose scope the caller lacks is refused by name.",
			Security:    securityFor(scopes...),
			RequestBody: &requestBody{Required: true, Content: map[string]mediaType{"application/json": {Schema: ref(schemaJSONRPC)}}},
			Responses: gateResponses(true, map[string]*response{
				"200": {Description: "A JSON-RPC response.", Content: map[string]mediaType{"application/json": {Schema: ref(schemaJSONRPC)}}},
				"202": {Description: "A notification or response was accepted."},
			})}
		doc.add(http.MethodPost, "/mcp", op)
	}
	if o.direct {
		doc.add(http.MethodGet, ResourceMetadataPath, &operation{OperationID: "protected_resource_metadata", Summary: "OAuth protected resource metadata (RFC 9728)",
			Tags: []string{"identity"}, Description: "Where to obtain a token for this server; the 401 responses point here.",
			Responses: publicResponses(jsonResponse("The metadata.", schemaResourceMetadata))})
		if o.mcp {
			doc.add(http.MethodGet, ResourceMetadataPath+"/mcp", &operation{OperationID: "protected_resource_metadata_mcp",
				Summary: "OAuth protected resource metadata of /mcp (RFC 9728)", Tags: []string{"identity"},
				Description: "The metadata at the path-specific location MCP clients look up first; its resource is the /mcp URL.",
				Responses:   publicResponses(jsonResponse("The metadata.", schemaResourceMetadata))})
		}
	}
	return doc, nil
}

func (d *openAPI) add(method, path string, op *operation) {
	p := d.Paths[path]
	if p == nil {
		p = &pathItem{}
		d.Paths[path] = p
	}
	if method == http.MethodGet {
		p.Get = op
	} else {
		p.Post = op
	}
}

func ref(name string) *jsonschema.Schema {
	return &jsonschema.Schema{Ref: "#/components/schemas/" + name}
}

func jsonResponse(desc, schema string) *response {
	return &response{Description: desc, Content: map[string]mediaType{"application/json": {Schema: ref(schema)}}}
}

// securityFor is the security of an operation any of scopes grants: the
// bearer alone, or the bearer with the deployment token header.
func securityFor(scopes ...string) []map[string][]string {
	var out []map[string][]string
	for _, s := range scopes {
		out = append(out, map[string][]string{schemeBearer: {s}}, map[string][]string{schemeBearer: {s}, schemeAccessToken: {}})
	}
	return out
}

// toolOperation is the operation of one capability.
func toolOperation(t app.Tool) *operation {
	op := &operation{
		OperationID: string(t.ID), Summary: t.Title, Description: t.Description, Tags: []string{"capabilities"},
		Security: securityFor(string(t.Scope)), Capability: t.ID, Scope: t.Scope,
	}
	switch t.ID {
	case domain.DescribeCatalog:
		op.Parameters = describeParameters()
		op.Responses = describeResponses()
	case domain.AskMetric:
		op.RequestBody = &requestBody{Required: true, Description: "The question: metrics, grain and range, optionally dimensions, filters, top and dry_run. Unknown fields are refused by name.",
			Content: map[string]mediaType{"application/json": {Schema: ref(schemaQuestion)}}}
		op.Responses = askResponses()
	case domain.RunSQL:
		op.RequestBody = &requestBody{Required: true, Description: "The statement: {\"statement\": \"...\"}. Unknown fields are refused by name.",
			Content: map[string]mediaType{"application/json": {Schema: ref(schemaSQLStatement)}}}
		op.Responses = runSQLResponses()
	}
	return op
}

// describeParameters are the query parameters of GET /v1/catalog, the
// arguments of describe_catalog (docs/contract.md §14).
func describeParameters() []parameter {
	no := false
	return []parameter{
		{Name: "search", In: "query", Description: "Words to find metrics by (1 to 200 characters), matched against names, descriptions, dimension names and glossary terms; the response lists summaries of the matches, best first.",
			Schema: &jsonschema.Schema{Type: "string", MinLength: jsonschema.Ptr(1), MaxLength: jsonschema.Ptr(app.MaxSearchChars)}},
		{Name: "metrics", In: "query", Description: "1 to 32 metric names, comma-separated, to describe in full. Not with search.", Style: "form", Explode: &no,
			Schema: &jsonschema.Schema{Type: "array", MinItems: jsonschema.Ptr(1), MaxItems: jsonschema.Ptr(app.MaxDescribeMetrics), Items: &jsonschema.Schema{Type: "string"}}},
		{Name: "cursor", In: "query", Description: "The next_cursor of the previous response, unchanged, with the same search or metrics, to continue the listing.",
			Schema: &jsonschema.Schema{Type: "string", MinLength: jsonschema.Ptr(1), MaxLength: jsonschema.Ptr(app.MaxCursorBytes)}},
	}
}

// describeResponses are the responses of GET /v1/catalog: the catalogue
// (at most 64 KiB; next_cursor and total when there is more), a name in
// metrics that is unknown or hidden refused as metric_unknown, a query
// that cannot be read (not_a_question: a bad search, a cursor not issued
// for this listing or issued before a re-pin), and the gates' failures.
func describeResponses() map[string]*response {
	rs := gateResponses(false, map[string]*response{"200": jsonResponse("The catalogue as the caller may see it: in full up to 25 metrics, else summaries; at most 64 KiB, with next_cursor and total when there is more.", schemaCatalog)})
	rs[strconv.Itoa(domain.MetricUnknown.Status())] = codeResponse(domain.MetricUnknown.Status(), []domain.Code{domain.MetricUnknown}, nil)
	rs[strconv.Itoa(NotAQuestion.Status())] = codeResponse(NotAQuestion.Status(), nil, []FailureCode{NotAQuestion})
	return rs
}

// runSQLResponses are the responses of POST /v1/sql/run: the rows without
// provenance, a refusal at the status of its code (result_too_large,
// deadline_exceeded, source_refused, credential_unavailable), and every
// failure; a statement the database failed is 400 statement_failed.
func runSQLResponses() map[string]*response {
	refusals := map[int][]domain.Code{}
	for _, c := range []domain.Code{domain.ResultTooLarge, domain.DeadlineExceeded, domain.SourceRefused, domain.CredentialUnavailable} {
		refusals[c.Status()] = append(refusals[c.Status()], c)
	}
	failures := failuresByStatus(append(gateFailures(true), NotAQuestion, StatementFailed, AtCapacity, Unavailable)...)
	rs := map[string]*response{"200": jsonResponse("The statement's rows, without provenance: these numbers are not certified.", schemaSQLResult)}
	statuses := map[int]bool{}
	for s := range refusals {
		statuses[s] = true
	}
	for s := range failures {
		statuses[s] = true
	}
	for _, s := range sortedInts(statuses) {
		rs[strconv.Itoa(s)] = codeResponse(s, refusals[s], failures[s])
	}
	return rs
}

// failures groups failure codes by status.
func failuresByStatus(codes ...FailureCode) map[int][]FailureCode {
	out := map[int][]FailureCode{}
	for _, c := range codes {
		out[c.Status()] = append(out[c.Status()], c)
	}
	return out
}

// codeResponse is the response of one status that may carry refusals and
// failures of the given codes.
func codeResponse(status int, refusals []domain.Code, failures []FailureCode) *response {
	var parts []string
	var schemas []*jsonschema.Schema
	if len(refusals) > 0 {
		names := make([]string, len(refusals))
		for i, c := range refusals {
			names[i] = string(c)
		}
		parts = append(parts, "refusal "+strings.Join(names, ", "))
		schemas = append(schemas, ref(schemaRefusal))
	}
	if len(failures) > 0 {
		names := make([]string, len(failures))
		for i, c := range failures {
			names[i] = string(c)
		}
		parts = append(parts, "failure "+strings.Join(names, ", "))
		schemas = append(schemas, ref(schemaFailure))
	}
	schema := schemas[0]
	if len(schemas) > 1 {
		schema = &jsonschema.Schema{OneOf: schemas}
	}
	r := &response{Description: http.StatusText(status) + ": " + strings.Join(parts, "; ") + ".",
		Content: map[string]mediaType{"application/json": {Schema: schema}}}
	codes := append(append([]string{}, stringsOf(refusals)...), stringsOf(failures)...)
	switch {
	case status == http.StatusUnauthorized || slices.Contains(codes, string(InsufficientScope)):
		r.Headers = map[string]*header{"WWW-Authenticate": {Description: "The bearer challenge (RFC 6750); with inbound identity it names the resource metadata and, for insufficient_scope, the scope.",
			Schema: &jsonschema.Schema{Type: "string"}}}
	case slices.Contains(codes, string(AtCapacity)) || slices.Contains(codes, string(RateLimited)) || slices.Contains(codes, string(domain.BudgetExhausted)):
		r.Headers = map[string]*header{"Retry-After": {Description: "Seconds to wait before asking again (at_capacity, rate_limited, budget_exhausted).",
			Schema: &jsonschema.Schema{Type: "integer", Minimum: jsonschema.Ptr(1.0)}}}
	}
	return r
}

func stringsOf[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

func failureResponse(c FailureCode) *response { return codeResponse(c.Status(), nil, []FailureCode{c}) }

// gateFailures are the failures of the gates in front of /v1 and /mcp.
func gateFailures(body bool) []FailureCode {
	fs := []FailureCode{Unauthorized, InsufficientScope, ToolNotEnabled, HostNotAllowed, RateLimited, Timeout, Internal, IdentityUnavailable}
	if body {
		fs = append(fs, TooLarge, UnsupportedMediaType)
	}
	return fs
}

// gateResponses adds the failures of the gates to rs.
func gateResponses(body bool, rs map[string]*response) map[string]*response {
	for status, codes := range failuresByStatus(gateFailures(body)...) {
		rs[strconv.Itoa(status)] = codeResponse(status, nil, codes)
	}
	return rs
}

// publicResponses are the responses of a route behind only the rate limit
// and the Host allowlist.
func publicResponses(ok *response) map[string]*response {
	rs := map[string]*response{"200": ok}
	for status, codes := range failuresByStatus(HostNotAllowed, RateLimited, Timeout) {
		rs[strconv.Itoa(status)] = codeResponse(status, nil, codes)
	}
	return rs
}

// askResponses are the responses of POST /v1/query: the answer, a refusal
// at the status of its code, and every failure.
func askResponses() map[string]*response {
	refusals := map[int][]domain.Code{}
	for _, c := range domain.Codes() {
		refusals[c.Status()] = append(refusals[c.Status()], c)
	}
	failures := failuresByStatus(append(gateFailures(true), NotAQuestion, AtCapacity, Unavailable, ZeroDenominator)...)
	rs := map[string]*response{"200": {Description: "The answer: rows with their provenance; or, for dry_run: true, the estimate of what the question would scan and the refusal it would meet, without running it.",
		Content: map[string]mediaType{"application/json": {Schema: &jsonschema.Schema{OneOf: []*jsonschema.Schema{ref(schemaAnswer), ref(schemaEstimate)}}}}}}
	statuses := map[int]bool{}
	for s := range refusals {
		statuses[s] = true
	}
	for s := range failures {
		statuses[s] = true
	}
	for _, s := range sortedInts(statuses) {
		rs[strconv.Itoa(s)] = codeResponse(s, refusals[s], failures[s])
	}
	return rs
}
