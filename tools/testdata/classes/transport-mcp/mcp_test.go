package mcp_test

import (
	"testing"

	http "sutura.dev/transport-http" // planted: both are transports, in tests too
	mcp "sutura.dev/transport-mcp"
)

func TestName(t *testing.T) {
	if mcp.Name == "" || http.Serve == nil {
		t.Fatal("unnamed")
	}
}
