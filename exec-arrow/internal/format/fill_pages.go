package format

import (
	"context"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/files"
)

// pagePool is a Loader's memory for decoding column chunks from their
// pages (see readPages): per goroutine reading a chunk, one set of
// scratch buffers and one PageIO, taken for the chunk and given back
// after it, so that chunk after chunk reuses them rather than allocating
// and zeroing fresh ones. It holds no more sets than goroutines ran at
// once (one for a background fill, at most GOMAXPROCS otherwise), each at
// most loadBatch rows of scratch, a window of ReadBuffer bytes or of the
// largest stored page read, and one decompressed page (at most the file's
// PageLimit). What it holds is metered with the builders (Tick, reserve)
// and freed with the Loader.
type pagePool struct {
	mu   sync.Mutex
	free []*DictBuffers
}

func (p *pagePool) get() *DictBuffers {
	p.mu.Lock()
	defer p.mu.Unlock()
	if k := len(p.free); k > 0 {
		b := p.free[k-1]
		p.free = p.free[:k-1]
		return b
	}
	return &DictBuffers{IO: &PageIO{}}
}

func (p *pagePool) put(b *DictBuffers) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.free = append(p.free, b)
}

// bytes is what the pool holds between chunks (sets in use are counted
// when given back): scratch, windows and pages when all is false, only
// the pages read from the file itself (windows and decompressed pages)
// when it is true.
func (p *pagePool) bytes(pagesOnly bool) int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	var n int
	for _, b := range p.free {
		n += cap(b.IO.win) + cap(b.IO.out)
		if !pagesOnly {
			n += 4*(cap(b.Idx)+cap(b.Defs)+cap(b.Days)) + 8*(cap(b.Ints)+cap(b.Floats)) + cap(b.Valid) + cap(b.Bits)
		}
	}
	return int64(n)
}

// PageMemory is what the loader's page readers hold of pages read from
// the file itself (see NewPageChunkAt), between column chunks: zero when
// no chunk was read that way.
func (l *Loader) PageMemory() int64 { return l.pages.bytes(true) }

// readPages decodes the n rows of a chunk (see pageDirect) into want i's
// builder, loadBatch at a time, read from the file itself through a
// pooled PageIO and set of scratch buffers (see pagePool); a value the
// column's type refuses names its file row (base is the row group's
// first). A chunk the page reader does not open is read through pqarrow,
// as the other columns are.
func (l *Loader) readPages(ctx context.Context, p files.Part, fr *pqarrow.FileReader, rg, leaf, i, base, n int) error {
	b := l.Builders[i].(column.ColumnAppender)
	proto := l.proto(i)
	bufs := l.pages.get()
	defer l.pages.put(bufs)
	pf := fr.ParquetReader()
	cs := ChunkSource{Src: l.src, File: pf, Limit: l.limit, IO: bufs.IO}
	d, err := NewPageChunkAt(cs, rg, leaf, pf.MetaData().Schema.Column(leaf), proto)
	if err != nil {
		return l.readRowGroup(ctx, p, fr, rg, []int{leaf}, []int{i}, base, n)
	}
	defer d.Close()
	*bufs = bufs.Grow(min(n, loadBatch), proto.Type)
	for off := 0; off < n; {
		if err := ctx.Err(); err != nil {
			return err
		}
		k := min(loadBatch, n-off)
		c, err := d.Next(k, *bufs)
		if ae, ok := err.(*ArrowErr); ok {
			return LoadError(p.Path, proto.Name, base+off+ae.Row+1, "row", ae.Err)
		} else if err != nil {
			return fmt.Errorf("file %s, row group %d, column %s: %w", p.Path, rg, proto.Name, err)
		}
		if row, err := b.AppendColumn(c); err != nil {
			return LoadError(p.Path, proto.Name, base+off+row+1, "row", err)
		}
		off += k
	}
	return nil
}
