// Package httpapi serves sutura's capabilities over HTTP: the /v1 routes,
// the generated OpenAPI 3.1 document and its /docs page, the MCP handler at
// /mcp, Prometheus metrics, and the gates in front of them (docs/contract.md §5,
// §6, §8).
//
// Routes: GET /health ({"status":"ok"}), GET /ready, GET /openapi.json,
// GET /docs, GET /metrics (behind its own token; unmounted without one),
// GET /v1/catalog (describe_catalog), POST /v1/query (ask_metric),
// POST /v1/sql/run (run_sql when enabled, else 403 tool_not_enabled), /mcp (the
// injected Streamable HTTP handler), GET /ui/ (the catalogue browser: an
// embedded page that talks to /v1 like any client; GET / redirects there)
// and, with inbound identity, GET /.well-known/oauth-protected-resource
// (RFC 9728).
//
// Layers, outermost first: metrics; a trace span with a correlation id
// (X-Correlation-Id adopted when well formed, else minted; written to logs
// and audit records and echoed as a response header, never into a body);
// the request timeout (the surface's, app.Surface.RequestTimeout); a
// token-bucket rate limit per client address; the Host allowlist
// (loopback names plus server.allowed_hosts, against DNS rebinding: the
// one Host decision, /mcp's included); the deployment bearer
// token (SHA-256 digests compared in constant time); inbound JWT identity,
// after which an authenticated caller is charged to the bucket of its
// subject instead of its address's; the capability gate, which asks the
// surface (app.Surface.Permit: enabled, and granted by the caller's
// scopes) so that the decision is app's on every transport; the body
// limit, which first refuses a POST that is not application/json (415
// unsupported_media_type, before reading the body). /health and /ready wear
// no layer but metrics, trace and timeout, so probes work from any address
// and Host; /openapi.json, /docs, /ui/ and the resource metadata wear the
// rate limit and Host allowlist only; /metrics wears those and its own
// token.
//
// Server.HTTPServer bounds every connection: header, whole-request, write
// and idle time derived from the request timeout, and the header size.
//
// Identity comes in one of three modes. With inbound identity (direct
// mode), callers present a JWT in "Authorization: Bearer", verified here
// with the standard library against a JWK set (RS256, ES256, EdDSA as
// pinned); its scopes select capabilities, its groups map to metric
// audiences, its act claims make the actor chain. The deployment access
// token then travels in the X-Sutura-Access-Token header. Single-user, every
// caller is the local operator with every scope. Otherwise every caller is
// the anonymous principal: every scope, open metrics only.
//
// The MCP handler answers as the caller the gates admitted: the gates put
// it in the request's context, and CallerFrom, which has the signature of
// mcpserver.Options.Caller, reads it back.
//
// Outcomes: an answer is 200 with the outcome body; a refusal is the status
// of its code with {outcome:"refusal", reason:{code, status, detail}};
// every other failure is {code, status, detail} (FailureCode). No body
// holds a value the caller sent.
package httpapi
