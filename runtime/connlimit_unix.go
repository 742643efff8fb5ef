//go:build unix

package runtime

import "syscall"

// DefaultMaxConnections is server.max_connections when no layer sets it:
// three quarters of the process's soft limit of open files (the rest is
// left for the data systems' pools, the audit file and the catalogue), at
// least 64 and at most 65536.
func DefaultMaxConnections() int {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur == 0 {
		return 1024
	}
	n := lim.Cur / 4 * 3
	return int(max(64, min(n, 65536)))
}
