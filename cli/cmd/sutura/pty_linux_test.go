package main

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"
)

// openPTY opens a pseudo-terminal: term is the terminal end, to hand to a
// process as a standard stream (isatty is true on it), and ctl the
// controller end, which reads what the process wrote there. The standard
// library has no pseudo-terminal, and the project takes no module for
// three ioctls: /dev/ptmx gives the controller, TIOCGPTN its number,
// TIOCSPTLCK unlocks /dev/pts/N. (script(1) from util-linux would do the
// same, but its options differ between systems and it merges the streams.)
func openPTY() (ctl, term *os.File, err error) {
	ctl, err = os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	var n uint32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, ctl.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); errno != 0 {
		ctl.Close()
		return nil, nil, fmt.Errorf("TIOCGPTN: %w", errno)
	}
	var unlock int32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, ctl.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); errno != 0 {
		ctl.Close()
		return nil, nil, fmt.Errorf("TIOCSPTLCK: %w", errno)
	}
	term, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		ctl.Close()
		return nil, nil, err
	}
	return ctl, term, nil
}
