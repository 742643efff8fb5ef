// Package mcp is a transport.
package mcp

// Name names the transport.
const Name = "mcp"
