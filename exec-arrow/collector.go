package engine

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
)

// HeapFloor is the least heap goal a process running the engine keeps
// (TuneCollector): an eighth of the working set ws (zero or less:
// DefaultWorkingSetMaxBytes), 128 MiB at the default.
func HeapFloor(ws int64) int64 {
	if ws <= 0 {
		ws = DefaultWorkingSetMaxBytes
	}
	return ws / 8
}

// TuneCollector sets the Go collector as a process whose engines share
// the working set ws runs it, once, at its start (docs/operations.md,
// "Memory under load"):
//
//   - the soft memory limit at SoftMemoryLimit(ws), unless GOMEMLIMIT is
//     set in the environment;
//   - the heap goal at least HeapFloor(ws), unless GOGC is set: while the
//     live heap is small, the collector's goal of twice it would start a
//     cycle every few megabytes a question allocates, and each cycle stops
//     the world twice, waiting for every worker to reach a safe point (a
//     page being decompressed in assembly is not one). After each cycle
//     GOGC is raised so that the goal is the floor, and is 100 once the
//     live heap passes half of it. The memory limit still bounds the heap.
//
// A process has one tuner: a later call (a test running the command line
// in process, say) sets the floor of the one already running. stop ends
// the tuning (GOGC stays as last set); calling it twice does nothing.
func TuneCollector(ws int64) (stop func()) {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(SoftMemoryLimit(ws))
	}
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	tuner.Lock()
	defer tuner.Unlock()
	if t := tuner.t; t != nil && !t.stopped.Load() {
		t.floor.Store(HeapFloor(ws))
		return t.stop
	}
	gogc := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(gogc)
	t := &heapFloor{percent: 100}
	if gogc[0].Value.Kind() == metrics.KindUint64 {
		t.percent = int(gogc[0].Value.Uint64()) // as a tuner stopped before left it
	}
	t.floor.Store(HeapFloor(ws))
	tuner.t = t
	t.adjust()
	t.arm()
	return t.stop
}

// tuner is the process's running heapFloor, if any.
var tuner struct {
	sync.Mutex
	t *heapFloor
}

// heapFloor raises GOGC after each collection while the live heap is
// under half the floor.
type heapFloor struct {
	floor   atomic.Int64
	percent int // GOGC as last set (by adjust alone, one call at a time)
	stopped atomic.Bool
	sample  [3]metrics.Sample
}

// stop ends the tuning.
func (t *heapFloor) stop() { t.stopped.Store(true) }

// sentinel is allocated once per cycle and becomes garbage at once: its
// cleanup runs after the collection that finds it. It holds a pointer so
// that the tiny allocator, which batches small pointer-free objects, does
// not keep it alive beside another.
type sentinel struct{ _ *int }

// arm allocates the cycle's sentinel.
func (t *heapFloor) arm() {
	runtime.AddCleanup(new(sentinel), (*heapFloor).cycle, t)
}

// cycle runs after a collection: it sets GOGC for the live heap found and
// waits for the next one.
func (t *heapFloor) cycle() {
	if t.stopped.Load() {
		return
	}
	t.adjust()
	t.arm()
}

// adjust sets GOGC so that the goal — the live heap, plus GOGC percent of
// it, the goroutines' stacks and the globals — is the floor, when that
// is more than 100; a change of under an eighth is not made.
func (t *heapFloor) adjust() {
	t.sample[0].Name = "/gc/heap/live:bytes"
	t.sample[1].Name = "/gc/scan/stack:bytes"
	t.sample[2].Name = "/gc/scan/globals:bytes"
	metrics.Read(t.sample[:])
	var n [3]int64
	for i, s := range t.sample {
		if s.Value.Kind() == metrics.KindUint64 {
			n[i] = int64(s.Value.Uint64())
		}
	}
	live, scan := n[0], max(n[0]+n[1]+n[2], 1<<20)
	want := 100
	if floor := t.floor.Load(); floor-live > scan {
		want = int(min((floor-live)*100/scan, 1<<20))
	}
	if d := want - t.percent; d > t.percent/8 || -d > t.percent/8 {
		debug.SetGCPercent(want)
		t.percent = want
	}
}
