// Package mcpserver serves sutura's capabilities over the Model Context
// Protocol, stdio and Streamable HTTP, with the official Go SDK
// (github.com/modelcontextprotocol/go-sdk).
//
// It translates the wire shape of each tool into a domain question, calls
// app.Surface and renders the outcome; it decides nothing about what a
// question may ask. The tools it declares come from app.Tools, the one
// capability list; their declarations, input and output schemas (generated
// from Go wire types, never written by hand), structured content and
// failure sentences come from package sutura.dev/app/wire, which every
// transport shares, and what this server serves is committed as snapshots
// under testdata/.
//
// Arguments are parsed by domain.ParseQuestion, never by the SDK's schema
// validation: the validator of github.com/google/jsonschema-go quotes the
// offending value in its messages ("enum: <value> does not equal any of",
// `pattern: "<value>" does not match`), and a caller's value is never
// echoed. Tools are therefore registered with Server.AddTool (raw
// arguments), not the generic mcp.AddTool.
//
// No response on any transport quotes a caller-supplied string: the SDK's
// error messages that would (raw params, an unknown method or tool, a bad
// jsonrpc tag, header values) are replaced on the way out by a fixed
// sentence per JSON-RPC code (scrub.go), on stdio, Streamable HTTP and the
// transports given to Server.Connect. JSON-RPC batches are refused on
// stdio and Streamable HTTP alike, before any of their calls runs.
//
// With Options.EnforceScopes, a caller is shown in tools/list only the tools
// its scopes grant, and calling another is refused; the caller is resolved
// per message from its context (Options.Caller), so over stateless
// Streamable HTTP each request is answered as the caller its own gates
// established, whatever Mcp-Session-Id header it carries.
//
// Besides the tools, the catalogue is served as MCP features
// (docs/contract.md §14, catalog.go): a resource per visible metric
// (sutura://metrics/<name>, markdown) listed in pages, the template
// sutura://metrics/{name}, the summary resource sutura://catalog, the
// prompt ask_about_metric and completions of their arguments, each the
// caller's view as the surface decides it. Every list carries cache hints
// (private when it depends on the caller), the tool list keeps the
// capability list's order, and the capabilities declared in initialize and
// server/discover are exactly these. A re-pin of the catalogue sends the
// three list-changed notifications, on stdio and through
// subscriptions/listen.
//
// How each kind of outcome comes back (docs/contract.md §5):
//
//   - answer and refusal: a tool result whose structuredContent is the
//     outcome's wire body, with a text block;
//   - arguments that are not a question: a tool result with isError and a
//     text naming the field, never the value;
//   - an unknown tool, or one the caller's scopes do not grant: JSON-RPC
//     error -32602 naming the tool when it is one of sutura's (and the
//     scope that would grant it), never a name sutura does not know;
//   - at capacity, out of time, a service failure: a tool result with
//     isError and a fixed sentence;
//   - a peer that cancelled (notifications/cancelled, or an HTTP client
//     gone): the question's context is cancelled, the data system stops and
//     the admission slot is given back.
package mcpserver
