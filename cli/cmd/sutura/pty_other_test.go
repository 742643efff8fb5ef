//go:build !linux

package main

import (
	"errors"
	"os"
)

// openPTY is written for Linux only; elsewhere the tests that need a
// terminal say NOT RUN.
func openPTY() (ctl, term *os.File, err error) {
	return nil, nil, errors.New("pseudo-terminals are opened on Linux only")
}
