package engine

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

// gcMetric reads one of the collector's metrics.
func gcMetric(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// awaitGOGC collects until GOGC satisfies ok (the tuner sets it from a
// cleanup that runs after a collection), for at most five seconds.
func awaitGOGC(t *testing.T, ok func(uint64) bool) uint64 {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		runtime.GC()
		if p := gcMetric("/gc/gogc:percent"); ok(p) || time.Now().After(deadline) {
			return p
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestTuneCollectorKeepsTheHeapFloor: with GOMEMLIMIT and GOGC unset,
// TuneCollector sets the soft memory limit, and after a collection with
// a small live heap the collector's goal is at least the floor (GOGC
// raised); once the live heap passes half the floor, GOGC is 100 again;
// after stop it is no longer changed; with GOGC set it is never tuned; a
// process runs one tuner however often it is asked for.
func TestTuneCollectorKeepsTheHeapFloor(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	t.Setenv("GOGC", "")
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	defer debug.SetGCPercent(debug.SetGCPercent(100))

	// A floor well over what this test process already holds (other
	// tests' fixtures): 128 MiB, or four times the live heap and more.
	runtime.GC()
	ws := max(int64(1<<30), 8*(4*int64(gcMetric("/gc/heap/live:bytes"))+64<<20))
	stop := TuneCollector(ws)
	defer stop()
	first := tuner.t
	if again := TuneCollector(ws); tuner.t != first || again == nil {
		t.Fatal("a second call started a second tuner")
	}
	if got := debug.SetMemoryLimit(-1); got != SoftMemoryLimit(ws) {
		t.Fatalf("memory limit %d, want %d", got, SoftMemoryLimit(ws))
	}
	p := awaitGOGC(t, func(p uint64) bool { return p > 100 })
	goal := gcMetric("/gc/heap/goal:bytes")
	if p <= 100 || goal < uint64(HeapFloor(ws))*7/8 {
		t.Fatalf("small live heap: GOGC %d, goal %d; want it raised to a goal of about %d", p, goal, HeapFloor(ws))
	}

	var held [][]byte
	for range HeapFloor(ws)/2>>20 + 16 { // past half the floor
		held = append(held, make([]byte, 1<<20))
	}
	if p := awaitGOGC(t, func(p uint64) bool { return p == 100 }); p != 100 {
		t.Fatalf("live heap of %d MiB: GOGC %d, want 100", len(held), p)
	}
	runtime.KeepAlive(held)
	held = nil

	stop()
	stop()
	debug.SetGCPercent(100)
	runtime.GC()
	runtime.GC()
	time.Sleep(50 * time.Millisecond)
	runtime.GC()
	if p := gcMetric("/gc/gogc:percent"); p != 100 {
		t.Fatalf("after stop: GOGC %d, want it left at 100", p)
	}

	t.Setenv("GOGC", "100")
	stop = TuneCollector(ws)
	defer stop()
	runtime.GC()
	time.Sleep(50 * time.Millisecond)
	runtime.GC()
	if p := gcMetric("/gc/gogc:percent"); p != 100 {
		t.Fatalf("GOGC set in the environment: tuned to %d", p)
	}
}
