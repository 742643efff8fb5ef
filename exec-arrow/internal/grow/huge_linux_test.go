//go:build linux

package grow

import (
	"bufio"
	"os"
	"os/exec"
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
	s := To([]int64(nil), 4<<20) // 32 MiB
	mid := uintptr(unsafe.Pointer(unsafe.SliceData(s[:1]))) + 16<<20
	flags := vmFlags(t, mid)
	_, thp := os.Stat("/sys/kernel/mm/transparent_hugepage")
	if got := strings.Contains(" "+strings.Join(flags, " ")+" ", " hg "); got != (thp == nil) {
		t.Fatalf("flags %v of a reserved column: huge pages advised %v, kernel has them %v", flags, got, thp == nil)
	}
	runtime.KeepAlive(s)
}

// GODEBUG is read as the runtime reads it: the last disablethp counts,
// a value that is no number is ignored, and another name is no switch.
func TestDisablesTHP(t *testing.T) {
	for godebug, want := range map[string]bool{
		"":                                false,
		"disablethp=1":                    true,
		"disablethp=0":                    false,
		"disablethp=2":                    true,
		"gctrace=1,disablethp=1":          true,
		"disablethp=1,disablethp=0":       false,
		"disablethp=1,disablethp=x":       true,
		"disablethp=x":                    false,
		"xdisablethp=1":                   false,
		"disablethp":                      false,
		"madvdontneed=1, disablethp=1":    false, // " disablethp" is another name
		"disablethp=1,madvdontneed=1,x=y": true,
	} {
		if got := disablesTHP(godebug); got != want {
			t.Errorf("GODEBUG=%q: disablethp set %v, want %v", godebug, got, want)
		}
	}
}

// A process started with GODEBUG=disablethp=1 advises no huge page: the
// test binary runs this test again as such a process.
func TestNoAdviceWithDisableTHP(t *testing.T) {
	if os.Getenv("SUTURA_HUGE_CHILD") == "1" {
		s := To([]int64(nil), 4<<20)
		mid := uintptr(unsafe.Pointer(unsafe.SliceData(s[:1]))) + 16<<20
		if flags := vmFlags(t, mid); strings.Contains(" "+strings.Join(flags, " ")+" ", " hg ") {
			t.Fatalf("flags %v: huge pages advised under disablethp=1", flags)
		}
		runtime.KeepAlive(s)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestNoAdviceWithDisableTHP$", "-test.count=1")
	cmd.Env = append(os.Environ(), "SUTURA_HUGE_CHILD=1", "GODEBUG=disablethp=1")
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "PASS") {
		t.Fatalf("the child: %v\n%s", err, out)
	}
}
