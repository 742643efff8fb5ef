package kernel

import (
	"math/rand/v2"
	"runtime"
	"syscall"
	"testing"
	"time"

	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/exact"
	"sutura.dev/exec-arrow/internal/i128"
)

// BenchmarkSumKernel10M measures the sum kernels alone over 10 M values
// in one group, in batches of column.ChunkRows positions: plain float64
// addition, compensated (two-sum) addition, decimal coefficients added in
// 128 bits, and int64 addition plain and checked for overflow (exact.AddInt) (docs/performance.md, Exact numbers). Besides the
// wall time it reports cpu-ns/op, the CPU time of the benchmark's thread:
// on a machine shared with other work, the wall time also counts the time
// the thread waited for a core.
//
//	cd exec-arrow && go test -run '^$' -bench SumKernel10M -count 5 ./internal/kernel
func BenchmarkSumKernel10M(b *testing.B) {
	const n = 10_000_000
	rng := rand.New(rand.NewPCG(1, 2))
	floats := make([]float64, n)
	ints := make([]int64, n)
	for i := range floats {
		ints[i] = rng.Int64N(1_000_000_00) - 1_000_00
		floats[i] = float64(ints[i]) / 100
	}
	rows := make([]int32, column.ChunkRows)
	for i := range rows {
		rows[i] = int32(i)
	}
	var sink float64
	var dsink i128.Int
	b.Run("float64-plain", func(b *testing.B) {
		defer threadCPU(b)()
		for range b.N {
			s := 0.0
			for lo := 0; lo < n; lo += len(rows) {
				vals := floats[lo:min(lo+len(rows), n)]
				for _, r := range rows[:len(vals)] {
					s += vals[r]
				}
			}
			sink = s
		}
	})
	b.Run("float64-compensated", func(b *testing.B) {
		defer threadCPU(b)()
		for range b.N {
			s, c := 0.0, 0.0
			for lo := 0; lo < n; lo += len(rows) {
				vals := floats[lo:min(lo+len(rows), n)]
				s, c = exact.TwoSumRows(s, c, vals, rows[:len(vals)])
			}
			sink = s + c
		}
	})
	b.Run("decimal", func(b *testing.B) {
		defer threadCPU(b)()
		for range b.N {
			var acc i128.Int
			for lo := 0; lo < n; lo += len(rows) {
				vals := ints[lo:min(lo+len(rows), n)]
				for _, r := range rows[:len(vals)] {
					acc = acc.AddInt64(vals[r])
				}
			}
			dsink = acc
		}
	})
	var isink int64
	b.Run("int64-plain", func(b *testing.B) {
		defer threadCPU(b)()
		for range b.N {
			var acc int64
			for lo := 0; lo < n; lo += len(rows) {
				vals := ints[lo:min(lo+len(rows), n)]
				for _, r := range rows[:len(vals)] {
					acc += vals[r]
				}
			}
			isink = acc
		}
	})
	b.Run("int64-checked", func(b *testing.B) {
		defer threadCPU(b)()
		for range b.N {
			var acc, ovf int64
			for lo := 0; lo < n; lo += len(rows) {
				vals := ints[lo:min(lo+len(rows), n)]
				for _, r := range rows[:len(vals)] {
					var o int64
					acc, o = exact.AddInt(acc, vals[r])
					ovf |= o
				}
			}
			isink = acc | ovf
		}
	})
	_, _, _ = sink, dsink, isink
}

// threadCPU locks the benchmark to its thread and returns the function
// that reports the thread's CPU time per operation since.
func threadCPU(b *testing.B) func() {
	runtime.LockOSThread()
	start := cpuNow()
	b.ResetTimer()
	return func() {
		b.ReportMetric(float64((cpuNow()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
		runtime.UnlockOSThread()
	}
}

func cpuNow() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
