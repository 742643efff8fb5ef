package httpapi

import "sutura.dev/domain"

// The Go wire types below exist to generate the OpenAPI schemas of what
// only HTTP has (the refusal with its status, the failure body, probes,
// the resource metadata) with github.com/google/jsonschema-go; the struct
// tag `jsonschema` is the description a reader sees. The schemas of the
// tools themselves (the question, the answer, the catalogue) are not
// generated here: they come from sutura.dev/app/wire, from the same Go
// types and the same generator as every other transport's.

// Scalar wire types; scalarSchemas gives each its schema.
type (
	refusalTag string
	statusCode int
	failureTag string
	okTag      string
	readyTag   string
)

// refusalWire is the body of a refused question; its status is the
// reason's.
type refusalWire struct {
	Outcome refusalTag `json:"outcome" jsonschema:"refusal: the question may not be asked, for the reason given. This is an answer, not an error."`
	Reason  reasonWire `json:"reason" jsonschema:"Why the question was refused."`
}

type reasonWire struct {
	Code   domain.Code `json:"code" jsonschema:"A stable refusal code."`
	Status statusCode  `json:"status" jsonschema:"The HTTP status of the response, fixed per code."`
	Detail string      `json:"detail" jsonschema:"A sentence for a person."`
	// RetryAfter is budget_exhausted's wait (docs/contract.md §15), also in
	// the Retry-After header.
	RetryAfter int64 `json:"retry_after_seconds,omitempty" jsonschema:"budget_exhausted: seconds until enough of the caller's budget window has passed to ask again, as in Retry-After."`
}

// failureWire is the body of every failure.
type failureWire struct {
	Code   failureTag `json:"code" jsonschema:"A stable failure code."`
	Status statusCode `json:"status" jsonschema:"The HTTP status of the response, fixed per code."`
	Detail string     `json:"detail" jsonschema:"A sentence for a person; it never holds a value the caller sent."`
}

// healthWire is the body of GET /health.
type healthWire struct {
	Status okTag `json:"status" jsonschema:"ok: the process serves HTTP."`
}

// readyWire is the 200 body of GET /ready.
type readyWire struct {
	Status readyTag `json:"status" jsonschema:"ready: the catalogue is pinned, its anchors checked and every source open."`
}

// resourceMetadataWire is the RFC 9728 protected resource metadata.
type resourceMetadataWire struct {
	Resource               string   `json:"resource" jsonschema:"The resource identifier: this server's base URL."`
	AuthorizationServers   []string `json:"authorization_servers" jsonschema:"The issuers whose tokens this server accepts."`
	ScopesSupported        []string `json:"scopes_supported" jsonschema:"The scopes that grant this deployment's capabilities."`
	BearerMethodsSupported []string `json:"bearer_methods_supported" jsonschema:"How the token is presented: in the Authorization header."`
	ResourceName           string   `json:"resource_name" jsonschema:"A name for people."`
	ResourceDocumentation  string   `json:"resource_documentation" jsonschema:"Where the API is described for people."`
}

// jsonRPCWire stands for one JSON-RPC 2.0 message of MCP Streamable HTTP;
// the MCP schema, not this document, describes its members.
type jsonRPCWire struct{}
