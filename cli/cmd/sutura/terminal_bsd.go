//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package main

import "syscall"

// ioctlGetTermios reads a terminal's attributes.
const ioctlGetTermios = syscall.TIOCGETA
