//go:build !unix

package runtime

// DefaultMaxConnections is server.max_connections when it is not set.
func DefaultMaxConnections() int { return 1024 }
