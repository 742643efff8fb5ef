//go:build linux

package grow

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unsafe"
)

// hugePage is the size of a transparent huge page on Linux (x86-64 and
// arm64 with 4 KiB pages).
const hugePage = 2 << 20

// adviseHuge asks the kernel to back the whole huge pages inside the n
// bytes at p with transparent huge pages (madvise MADV_HUGEPAGE) before
// anything touches them: one fault then maps 2 MiB instead of 4 KiB. A
// column's memory is written whole once reserved, and a first touch costs
// the most on virtual machines (docs/performance.md, "Time columns
// reused, huge pages for columns"). Memory below HugeMin is left alone,
// so the advice marks few ranges; where the kernel keeps huge pages off,
// or refuses, nothing changes; nor when the process was started with
// GODEBUG=disablethp=1, the runtime's own switch to keep huge pages off
// its heap.
func adviseHuge(p unsafe.Pointer, n uintptr) {
	if n < HugeMin || hugeOff() {
		return
	}
	start := (uintptr(p)+hugePage-1)&^(hugePage-1) - uintptr(p)
	end := (uintptr(p)+n)&^(hugePage-1) - uintptr(p)
	if end <= start {
		return
	}
	_ = syscall.Madvise(unsafe.Slice((*byte)(unsafe.Add(p, start)), end-start), syscall.MADV_HUGEPAGE)
}

// hugeOff reports whether GODEBUG, as the process started, sets
// disablethp=1.
var hugeOff = sync.OnceValue(func() bool { return disablesTHP(os.Getenv("GODEBUG")) })

// disablesTHP reports whether a GODEBUG value sets disablethp to a
// number other than 0, read as the runtime reads it at start: settings
// are comma-separated name=value pairs, a later one overrides an earlier
// one, and a value that is no number is ignored.
func disablesTHP(godebug string) bool {
	off := false
	for kv := range strings.SplitSeq(godebug, ",") {
		if name, value, ok := strings.Cut(kv, "="); ok && name == "disablethp" {
			if n, err := strconv.ParseInt(value, 10, 32); err == nil {
				off = n != 0
			}
		}
	}
	return off
}
