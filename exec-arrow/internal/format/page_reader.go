package format

import (
	"errors"
	"fmt"
	"io"
	"unsafe"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
)

// pageSource is the pages of one column chunk, one at a time: next reads
// a page's header (io.EOF at the chunk's end), data its bytes,
// decompressed (version 2: the levels, then the values); a page whose
// data is not asked for is not read past its header (by chunkPages).
// seek moves to the data page holding a row, by the chunk's offset
// index (ok false: it has none).
type pageSource interface {
	next() (pageHead, error)
	data() ([]byte, error)
	seek(row int64) (h pageHead, ok bool, err error)
	// align notes where the values of the page data returned lie, so
	// that the next page's land on a multiple of 8 bytes if they start
	// as far into it (see PageChunk.view).
	align(values []byte)
	close()
}

// PageIO is a worker's memory for reading one column's pages, reused
// from column chunk to column chunk (a chunk's pages are done with when
// the next chunk is opened): the stored bytes, read a window at a time,
// and one decompressed page. Reused, neither is allocated, zeroed nor
// first touched again.
type PageIO struct {
	win, out []byte
	pad      int     // where in out a page is decompressed (see align)
	dict     []int64 // an integer chunk's dictionary (see readDictionary)
}

// maxHeader is the longest page header read (statistics included).
const maxHeader = 16 << 20

// chunkPages reads the pages of an unencrypted column chunk from its
// file with ReadAt, through the window of a PageIO: a window holds
// ReadBuffer bytes, or the whole largest page met so far, so that a
// chunk of one page (as DuckDB writes them) is one read.
type chunkPages struct {
	src      io.ReaderAt
	io       *PageIO
	start    int64 // the chunk's first byte
	pos, end int64 // the next header; the chunk's end
	win      []byte
	winOff   int64
	codec    compress.Codec // nil: uncompressed
	limit    int            // the largest uncompressed page
	head     pageHead
	body     int64 // the current page's stored bytes, -1 none
	index    func() ([]metadata.PageLocation, error)
}

func newChunkPages(src io.ReaderAt, buf *PageIO, cc *metadata.ColumnChunkMetaData, fileSize int64, limit int64,
	index func() ([]metadata.PageLocation, error)) (*chunkPages, error) {
	start := cc.DataPageOffset()
	if cc.HasDictionaryPage() && cc.DictionaryPageOffset() > 0 && start > cc.DictionaryPageOffset() {
		start = cc.DictionaryPageOffset()
	}
	size := cc.TotalCompressedSize()
	if start < 0 || size < 0 || (fileSize > 0 && (start > fileSize || size > fileSize-start)) {
		return nil, fmt.Errorf("the footer places the column chunk outside the file")
	}
	c := &chunkPages{src: src, io: buf, start: start, pos: start, end: start + size, limit: int(min(limit, 1<<31-1)),
		body: -1, index: index}
	if cc.Compression() != compress.Codecs.Uncompressed {
		codec, err := compress.GetCodec(cc.Compression())
		if err != nil {
			return nil, err
		}
		c.codec = codec
	}
	return c, nil
}

// fill makes the window hold the chunk's bytes from off on: at least
// need of them, and as many more as its memory holds (at least
// ReadBuffer), the chunk allowing. Bytes already in the window are
// moved, not read again.
func (c *chunkPages) fill(off int64, need int) error {
	if int64(need) > c.end-off {
		return fmt.Errorf("a page of the column chunk runs past its end")
	}
	n := int(min(c.end-off, int64(max(need, ReadBuffer, cap(c.io.win)))))
	kept := 0
	var have []byte
	if off >= c.winOff && off < c.winOff+int64(len(c.win)) {
		have = c.win[off-c.winOff:]
	}
	buf := c.io.win
	if cap(buf) < n {
		buf = make([]byte, n, n+n/8)
	}
	buf = buf[:n]
	kept = copy(buf, have)
	if _, err := c.src.ReadAt(buf[kept:], off+int64(kept)); err != nil && !errors.Is(err, io.EOF) {
		return err
	} else if err != nil {
		return fmt.Errorf("the column chunk runs past the end of the file")
	}
	c.io.win, c.win, c.winOff = buf, buf, off
	return nil
}

// bytesAt returns the window's bytes from off on (none when off is
// outside it).
func (c *chunkPages) bytesAt(off int64) []byte {
	if off < c.winOff || off >= c.winOff+int64(len(c.win)) {
		return nil
	}
	return c.win[off-c.winOff:]
}

func (c *chunkPages) next() (pageHead, error) {
	c.body = -1
	if c.pos >= c.end {
		return pageHead{}, io.EOF
	}
	for {
		b := c.bytesAt(c.pos)
		h, n, err := parsePageHeader(b)
		if errors.Is(err, errShortHeader) || len(b) == 0 {
			if int64(len(b)) >= c.end-c.pos || len(b) >= maxHeader {
				return pageHead{}, errBadHeader
			}
			if err := c.fill(c.pos, min(max(2*len(b), 1<<10), int(c.end-c.pos))); err != nil {
				return pageHead{}, err
			}
			continue
		}
		if err != nil {
			return pageHead{}, err
		}
		if err := checkHead(h); err != nil {
			return pageHead{}, err
		}
		if h.size > c.limit {
			return pageHead{}, fmt.Errorf("a page of the column chunk declares %d bytes, more than the file allows", h.size)
		}
		body := c.pos + int64(n)
		if int64(h.raw) > c.end-body {
			return pageHead{}, fmt.Errorf("a page of the column chunk runs past its end")
		}
		c.head, c.body, c.pos = h, body, body+int64(h.raw)
		return h, nil
	}
}

func (c *chunkPages) data() ([]byte, error) {
	h := c.head
	if c.body < 0 {
		return nil, fmt.Errorf("no page to read")
	}
	raw := c.bytesAt(c.body)
	if len(raw) < h.raw {
		if err := c.fill(c.body, h.raw); err != nil {
			return nil, err
		}
		raw = c.bytesAt(c.body)
	}
	raw = raw[:h.raw]
	levels := 0
	if h.kind == pageDataV2 {
		levels = h.defLen + h.repLen
		if levels > h.raw || levels > h.size {
			return nil, fmt.Errorf("a data page's levels are longer than the page")
		}
		if !h.compressed {
			levels = h.raw
		}
	}
	if c.codec == nil || levels == h.raw {
		if h.raw != h.size {
			return nil, fmt.Errorf("a page of the column chunk is not of the size it declares")
		}
		return raw, nil
	}
	out, pad := c.io.out, c.io.pad
	if cap(out) < h.size+pad {
		out = make([]byte, h.size+pad, h.size+pad+h.size/8)
		c.io.out = out
	}
	out = out[pad : pad+h.size]
	copy(out, raw[:levels])
	got, err := compress.Decode(c.codec, out[levels:], raw[levels:])
	if err != nil {
		return nil, fmt.Errorf("a page of the column chunk does not decompress: %w", err)
	}
	if len(got) != h.size-levels {
		return nil, fmt.Errorf("a page of the column chunk is not of the size it declares")
	}
	if len(got) > 0 && &got[0] != &out[levels] {
		copy(out[levels:], got)
	}
	return out, nil
}

func (c *chunkPages) seek(row int64) (pageHead, bool, error) {
	if c.index == nil {
		return pageHead{}, false, nil
	}
	locs, err := c.index()
	if err != nil || len(locs) == 0 {
		return pageHead{}, false, err
	}
	i := len(locs) - 1
	for i > 0 && locs[i].FirstRowIndex > row {
		i--
	}
	loc := locs[i]
	if loc.FirstRowIndex > row || loc.FirstRowIndex < 0 || loc.Offset < c.start || loc.Offset >= c.end {
		return pageHead{}, true, fmt.Errorf("the offset index does not place row %d", row)
	}
	c.pos = loc.Offset
	h, err := c.next()
	if err == io.EOF {
		err = fmt.Errorf("the offset index places row %d past the column chunk", row)
	}
	if err != nil {
		return pageHead{}, true, err
	}
	if h.kind == pageDictionary {
		return pageHead{}, true, fmt.Errorf("the offset index places row %d in no data page", row)
	}
	h.first = loc.FirstRowIndex
	return h, true, nil
}

func (c *chunkPages) align(values []byte) {
	out := c.io.out[:cap(c.io.out)]
	if len(values) == 0 || len(out) == 0 {
		return
	}
	at := uintptr(unsafe.Pointer(&values[0]))
	if base := uintptr(unsafe.Pointer(&out[0])); at >= base && at < base+uintptr(len(out)) {
		c.io.pad = (c.io.pad + 8 - int(at%8)) % 8
	}
}

func (c *chunkPages) close() {}

// arrowPages are the pages of a column chunk as the Parquet library's
// page reader gives them (decompressed as they are read).
type arrowPages struct {
	pr    file.PageReader
	page  file.Page
	index bool // the chunk has an offset index
}

func (a *arrowPages) next() (pageHead, error) {
	p, err := readPage(a.pr)
	if err != nil {
		return pageHead{}, err
	}
	if p == nil {
		return pageHead{}, io.EOF
	}
	a.page = p
	return headOf(p)
}

func (a *arrowPages) data() ([]byte, error) { return a.page.Data(), nil }

func (a *arrowPages) seek(row int64) (pageHead, bool, error) {
	if !a.index {
		return pageHead{}, false, nil
	}
	p, err := seekPage(a.pr, row)
	if err != nil {
		return pageHead{}, true, err
	}
	a.page = p
	h, err := headOf(p)
	if err == nil && h.kind == pageDictionary {
		err = fmt.Errorf("the offset index places row %d in no data page", row)
	}
	return h, true, err
}

func (a *arrowPages) align([]byte) {}

func (a *arrowPages) close() { _ = a.pr.Close() }

// headOf is the header of a page of the library's.
func headOf(p file.Page) (pageHead, error) {
	h := pageHead{first: -1, values: int(p.NumValues()), enc: parquet.Encoding(p.Encoding())}
	switch p := p.(type) {
	case *file.DictionaryPage:
		h.kind = pageDictionary
	case *file.DataPageV1:
		h.kind, h.defEnc, h.first = PageData, p.DefinitionLevelEncoding(), p.FirstRowIndex()
	case *file.DataPageV2:
		h.kind, h.defLen, h.repLen, h.first = pageDataV2, int(p.DefinitionLevelByteLen()), int(p.RepetitionLevelByteLen()), p.FirstRowIndex()
	default:
		return h, fmt.Errorf("a page of the column chunk is of an unexpected type")
	}
	return h, checkHead(h)
}
