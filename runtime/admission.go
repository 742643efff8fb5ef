package runtime

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"
)

// ErrAtCapacity is returned by Acquire when no execution slot came free
// within the admission window.
var ErrAtCapacity = errors.New("at capacity, ask again shortly")

// AdmissionConfig configures the admission bound. Zero values take the
// defaults of docs/contract.md §7.
type AdmissionConfig struct {
	// MaxConcurrent is the number of questions executing at once across
	// every transport of the process: 1..512, default 8.
	MaxConcurrent int
	// Timeout is the longest wait for a slot: 1 s..300 s, default 5 s.
	Timeout time.Duration
}

// Admission is the one concurrency bound of a process. Exactly one is built,
// by the composition root, and shared by every transport: a slot is taken
// before a question's work starts and given back only when that work has
// stopped.
type Admission struct {
	sem     *semaphore.Weighted
	max     int
	timeout time.Duration
	inUse   atomic.Int64
	peak    atomic.Int64
	waiting atomic.Int64
}

// NewAdmission builds the process's admission bound. It is called from
// exactly one place (the cli composition root); the tools module checks it.
func NewAdmission(cfg AdmissionConfig) (*Admission, error) {
	if cfg.MaxConcurrent == 0 {
		cfg.MaxConcurrent = 8
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 5 * time.Second
	}
	if cfg.MaxConcurrent < 1 || cfg.MaxConcurrent > 512 {
		return nil, fmt.Errorf("runtime: max concurrent queries must be between 1 and 512")
	}
	if cfg.Timeout < time.Second || cfg.Timeout > 300*time.Second {
		return nil, fmt.Errorf("runtime: admission timeout must be between 1 and 300 seconds")
	}
	return &Admission{sem: semaphore.NewWeighted(int64(cfg.MaxConcurrent)), max: cfg.MaxConcurrent, timeout: cfg.Timeout}, nil
}

// Acquire takes a slot, waiting at most the admission timeout and never past
// ctx. It returns a release function that must be called exactly once, when
// the work has stopped; further calls do nothing. When no slot came free in
// time it returns ErrAtCapacity; when ctx ended first it returns ctx's error.
func (a *Admission) Acquire(ctx context.Context) (release func(), err error) {
	wait, cancel := context.WithTimeout(ctx, a.timeout)
	defer cancel()
	a.waiting.Add(1)
	err = a.sem.Acquire(wait, 1)
	a.waiting.Add(-1)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, ErrAtCapacity
	}
	if n := a.inUse.Add(1); n > a.peak.Load() {
		for p := a.peak.Load(); n > p && !a.peak.CompareAndSwap(p, n); p = a.peak.Load() {
		}
	}
	var once atomic.Bool
	return func() {
		if once.CompareAndSwap(false, true) {
			a.inUse.Add(-1)
			a.sem.Release(1)
		}
	}, nil
}

// Peak returns the most slots ever held at once: never more than
// Capacity, which is what the bound promises.
func (a *Admission) Peak() int { return int(a.peak.Load()) }

// Waiting returns the number of callers waiting for a slot now.
func (a *Admission) Waiting() int { return int(a.waiting.Load()) }

// InUse returns the number of slots held now.
func (a *Admission) InUse() int { return int(a.inUse.Load()) }

// Capacity returns the number of slots.
func (a *Admission) Capacity() int { return a.max }
