// Package http is a transport.
package http

// Name names the transport.
const Name = "http"
