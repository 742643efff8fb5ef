package mcpserver

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"sutura.dev/app/trace"
)

// metaTrace is the W3C trace context of a tools/call request's _meta
// (traceparent, tracestate; docs/contract.md §16), or carrier's (the HTTP
// request's headers, when the call came over HTTP) when _meta holds none.
// It is unchecked: the surface continues a valid traceparent and starts a
// new trace for anything else, never echoing it.
func metaTrace(meta mcp.Meta, carrier trace.Remote) trace.Remote {
	parent, _ := meta["traceparent"].(string)
	if parent == "" {
		return carrier
	}
	state, _ := meta["tracestate"].(string)
	return trace.Remote{Parent: parent, State: state}
}
