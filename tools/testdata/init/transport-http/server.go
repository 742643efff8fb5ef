// Package http is a transport: the no-init rule does not cover it.
package http

// Name names the transport.
var Name string

func init() { Name = "http" }
