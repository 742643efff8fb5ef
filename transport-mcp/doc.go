// Package mcp serves sutura's capabilities over the Model Context Protocol
// (stdio and Streamable HTTP) with the official Go SDK.
//
// It is filled by the MCP issue; until then it declares nothing.
package mcp
