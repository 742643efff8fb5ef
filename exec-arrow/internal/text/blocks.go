package text

import (
	"sync/atomic"

	"sutura.dev/exec-arrow/internal/column"
)

// Blocks recycles a question's text block buffers and record spans. A
// buffer grows to hold a block (Splitter.Fill accounts the growth);
// blocks in flight are bounded by the workers' queues, so the buffers are
// too, and the recycling channels hold them all (InFlight): a buffer they
// dropped was made again and grown by copying, 0.5 s of a 20 M-line
// NDJSON question's 8.5 s of CPU.
type Blocks struct {
	mem   Grower
	bufs  chan []byte
	spans chan []int32
	// size is the capacity the last block's buffer grew to: a buffer made
	// afresh starts there rather than growing by copying again.
	size atomic.Int64
}

// InFlight bounds the text blocks of a question with workers workers at
// once: two queued per worker, one in each worker's hands, the one the
// dispatcher is sending and the one it is filling.
func InFlight(workers int) int { return 3*workers + 2 }

// NewBlocks returns the recycler of a question with workers workers,
// whose new buffers and spans are accounted to mem.
func NewBlocks(mem Grower, workers int) *Blocks {
	return &Blocks{mem: mem, bufs: make(chan []byte, InFlight(workers)), spans: make(chan []int32, InFlight(workers))}
}

// Buffer returns a recycled block buffer, or a new one accounted to the
// question's working memory, of the size the last block needed.
func (b *Blocks) Buffer() ([]byte, error) {
	select {
	case buf := <-b.bufs:
		return buf[:0], nil
	default:
		size := max(b.size.Load(), 1<<20)
		if err := b.mem.Grow(size); err != nil {
			return nil, err
		}
		return make([]byte, 0, size), nil
	}
}

// Grew notes that a block's buffer reached capacity c.
func (b *Blocks) Grew(c int) {
	if int64(c) > b.size.Load() {
		b.size.Store(int64(c))
	}
}

// Spans returns a recycled slice for a block's record spans, or a new one
// of a whole block's room, accounted as Buffer is (appending a block's
// spans to a slice grown from nothing was half a second of serial
// copying over 20 M records: docs/performance.md).
func (b *Blocks) Spans() ([]int32, error) {
	select {
	case s := <-b.spans:
		return s[:0], nil
	default:
		if err := b.mem.Grow(8 * column.ChunkRows); err != nil {
			return nil, err
		}
		return make([]int32, 0, 2*column.ChunkRows), nil
	}
}

// Put takes back a block's buffer (nil: none) and spans once parsed.
func (b *Blocks) Put(buf []byte, spans []int32) {
	if buf != nil {
		select {
		case b.bufs <- buf:
		default:
		}
	}
	if spans != nil {
		select {
		case b.spans <- spans:
		default:
		}
	}
}
