//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package main

import (
	"io"
	"os"
	"syscall"
	"unsafe"
)

// isTerminal reports whether w is a terminal: an *os.File whose descriptor
// answers the terminal attributes request (what isatty(3) asks). A pipe, a
// file and /dev/null are not terminals.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	var t syscall.Termios
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), ioctlGetTermios, uintptr(unsafe.Pointer(&t)))
	return errno == 0
}
