package apptest

import (
	"context"
	"sync"
)

// gate is what the fakes share to hold a call: a signal per call that
// started, a release, and the errors of held calls their context ended.
type gate struct {
	init    sync.Once
	started chan struct{}
	release chan struct{}
	relOnce sync.Once

	gmu   sync.Mutex
	ended []error
}

func (g *gate) setup() {
	g.init.Do(func() {
		g.started = make(chan struct{}, startedBuffer)
		g.release = make(chan struct{})
	})
}

// pass signals that a call started and, when block is set, holds it until
// Release or until ctx ends, returning ctx's error then.
func (g *gate) pass(ctx context.Context, block bool) error {
	g.setup()
	select {
	case g.started <- struct{}{}:
	default:
	}
	if !block {
		return nil
	}
	select {
	case <-ctx.Done():
		g.gmu.Lock()
		g.ended = append(g.ended, ctx.Err())
		g.gmu.Unlock()
		return ctx.Err()
	case <-g.release:
		return nil
	}
}

// Started receives one value per call that started; signals beyond a
// large buffer are dropped.
func (g *gate) Started() <-chan struct{} {
	g.setup()
	return g.started
}

// Release lets every held call, and every later one, go on. Calling it
// again does nothing.
func (g *gate) Release() {
	g.setup()
	g.relOnce.Do(func() { close(g.release) })
}

// Ended returns, in order, the context's error of every held call that its
// context ended: what the data system saw of a cancellation.
func (g *gate) Ended() []error {
	g.gmu.Lock()
	defer g.gmu.Unlock()
	return append([]error(nil), g.ended...)
}
