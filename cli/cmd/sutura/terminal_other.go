//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package main

import "io"

// isTerminal reports false where sutura cannot ask: records then go where
// audit.sink says, as on a server.
func isTerminal(io.Writer) bool { return false }
