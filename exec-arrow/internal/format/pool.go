package format

import (
	"math/bits"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// bufferPool is the memory.Allocator streamed Parquet decodes into. A
// stream decodes batch after batch of the same shapes; giving each batch
// the buffers the previous one freed keeps the process's memory flat and
// spares the page faults and collections fresh memory costs (on the
// project's machines, first touching a megabyte costs more than decoding
// it). Buffers are kept by power-of-two size class, 64-byte aligned as
// Arrow wants, zeroed on reuse as Go's allocator would; sync.Pool drops
// them when the collector runs, so an idle engine holds none.
type bufferPool struct {
	classes [48]sync.Pool
}

// DecodePool is the one pool every stream shares.
var DecodePool = &bufferPool{}

var _ memory.Allocator = (*bufferPool)(nil)

// minPooled is the smallest buffer worth pooling.
const minPooled = 4 << 10

func sizeClass(n int) int { return bits.Len(uint(n - 1)) }

// Allocate returns a zeroed buffer of size bytes.
func (p *bufferPool) Allocate(size int) []byte {
	if size < minPooled {
		return alignedMake(size, size)
	}
	c := sizeClass(size)
	if b, ok := p.classes[c].Get().(*[]byte); ok {
		buf := (*b)[:size]
		clear(buf)
		return buf
	}
	return alignedMake(size, 1<<c)
}

// Reallocate returns a buffer of size bytes holding b's bytes.
func (p *bufferPool) Reallocate(size int, b []byte) []byte {
	if cap(b) >= size {
		old := len(b)
		b = b[:size]
		if size > old {
			clear(b[old:])
		}
		return b
	}
	nb := p.Allocate(size)
	copy(nb, b)
	p.Free(b)
	return nb
}

// Free keeps b for a later allocation of its class.
func (p *bufferPool) Free(b []byte) {
	c := cap(b)
	if c < minPooled || c&(c-1) != 0 {
		return
	}
	b = b[:c]
	p.classes[sizeClass(c)].Put(&b)
}

// alignedMake is a zeroed buffer of length n and capacity c whose first
// byte is 64-byte aligned.
func alignedMake(n, c int) []byte {
	buf := make([]byte, c+64)
	shift := int((64 - uintptr(unsafe.Pointer(unsafe.SliceData(buf)))%64) % 64)
	return buf[shift : shift+n : shift+c]
}
