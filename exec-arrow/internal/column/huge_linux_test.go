//go:build linux

package column

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// vmFlags returns the VmFlags of the mapping of this process that holds
// addr, from /proc/self/smaps.
func vmFlags(t *testing.T, addr uintptr) []string {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if lo, hi, ok := strings.Cut(strings.Fields(line)[0], "-"); ok && !strings.HasSuffix(line, ":") {
			a, err1 := strconv.ParseUint(lo, 16, 64)
			b, err2 := strconv.ParseUint(hi, 16, 64)
			if err1 == nil && err2 == nil {
				in = uint64(addr) >= a && uint64(addr) < b
				continue
			}
		}
		if rest, ok := strings.CutPrefix(line, "VmFlags:"); ok && in {
			return strings.Fields(rest)
		}
	}
	t.Fatalf("no mapping holds %#x", addr)
	return nil
}

// A column reserved whole is advised huge pages where the kernel has
// them: the mapping of its memory carries the flag (hg) madvise sets.
func TestGrowToAdvisesHugePages(t *testing.T) {
	s := growTo([]int64(nil), 4<<20) // 32 MiB
	mid := uintptr(unsafe.Pointer(unsafe.SliceData(s[:1]))) + 16<<20
	flags := vmFlags(t, mid)
	_, thp := os.Stat("/sys/kernel/mm/transparent_hugepage")
	if got := strings.Contains(" "+strings.Join(flags, " ")+" ", " hg "); got != (thp == nil) {
		t.Fatalf("flags %v of a reserved column: huge pages advised %v, kernel has them %v", flags, got, thp == nil)
	}
	runtime.KeepAlive(s)
}
