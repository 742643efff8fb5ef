package mcpserver

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"

	"sutura.dev/app/trace"
)

func TestMetaTrace(t *testing.T) {
	carrier := trace.Remote{Parent: "from-headers"}
	for name, tc := range map[string]struct {
		meta mcp.Meta
		want trace.Remote
	}{
		"none":            {nil, carrier},
		"traceparent":     {mcp.Meta{"traceparent": "tp", "tracestate": "ts"}, trace.Remote{Parent: "tp", State: "ts"}},
		"not a string":    {mcp.Meta{"traceparent": 7}, carrier},
		"tracestate only": {mcp.Meta{"tracestate": "ts"}, carrier},
	} {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tc.want, metaTrace(tc.meta, carrier))
		})
	}
}
