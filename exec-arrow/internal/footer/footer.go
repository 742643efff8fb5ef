// Package footer reads Parquet footers and keeps them decoded by the exact
// bytes they were decoded from (docs/performance.md, "One footer decode per
// file"): a file opened again whose footer bytes are unchanged is not
// decoded again, whatever its size or modification time say.
//
// Contract: Read always reads the file's footer bytes; it returns a kept
// footer only when those bytes equal the ones it was decoded from, so a
// rewritten file is never read through a stale footer. A kept footer is
// shared and must be treated as read-only. Footers of encrypted files are
// decoded by the Parquet library every time and never kept.
package footer

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
)

// MaxBytes bounds the footer bytes a Cache keeps unless it says otherwise
// (decoded, a footer takes a few times its bytes); past the bound the
// footers kept are dropped wholesale, which only costs decoding them
// again. A footer over a quarter of the bound is never kept.
const MaxBytes = 8 << 20

// tail is the length of a Parquet file's end: the footer's length and
// the magic bytes.
const tail = 8

// Cache keeps decoded footers by a key naming the file (its path within
// one source). The zero Cache is ready to use, and a nil *Cache keeps
// nothing; a Cache is safe for concurrent use.
type Cache struct {
	// Max bounds the footer bytes kept; zero means MaxBytes.
	Max int64

	mu    sync.Mutex
	by    map[string]entry
	bytes int64
}

type entry struct {
	raw []byte
	md  *metadata.FileMetaData
}

// Read returns the footer of the Parquet file src, named key: the kept
// one when the file's footer bytes are those it was decoded from, else
// the footer decoded now (and kept). Errors are the Parquet library's.
func (c *Cache) Read(src parquet.ReaderAtSeeker, key string) (*metadata.FileMetaData, error) {
	size, err := src.Seek(0, io.SeekEnd)
	if err != nil {
		return nil, fmt.Errorf("parquet: could not retrieve footer offset: %w", err)
	}
	if _, err := src.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	var end [tail]byte
	if size <= tail {
		return library(src)
	}
	if _, err := src.ReadAt(end[:], size-tail); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("parquet: could not read footer: %w", err)
	}
	n := int64(binary.LittleEndian.Uint32(end[:4]))
	if string(end[4:]) != "PAR1" || n+tail > size {
		// An encrypted footer, or no footer at all: the library
		// decodes it or says what is wrong, as it always did.
		return library(src)
	}
	at := size - tail - n
	if md, err := c.kept(src, key, at, n); md != nil || err != nil {
		return md, err
	}
	raw := make([]byte, n)
	if _, err := src.ReadAt(raw, at); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("parquet: could not read footer: %w", err)
	}
	decodes.Add(1)
	md, err := metadata.NewFileMetaData(raw, nil)
	if err != nil {
		return nil, fmt.Errorf("parquet: could not read footer: %w", err)
	}
	if md.IsSetEncryptionAlgorithm() {
		// A plaintext footer of an encrypted file: signatures and
		// decryptors are the library's business.
		return library(src)
	}
	md.SetSourceFileSize(size)
	c.keep(key, raw, md)
	return md, nil
}

// decodes counts the footers Read decoded, in this process.
var decodes atomic.Int64

// Decodes is how many footers Read has decoded in this process, through
// any Cache (a nil one included): each Read that found no kept footer for
// the bytes it read. Tests count with it that a path reads through a
// Cache.
func Decodes() int64 { return decodes.Load() }

// library decodes src's footer the way the Parquet library opens a file.
func library(src parquet.ReaderAtSeeker) (*metadata.FileMetaData, error) {
	decodes.Add(1)
	pf, err := file.NewParquetReader(src)
	if err != nil {
		return nil, err
	}
	return pf.MetaData(), nil
}

// kept returns the footer kept for key when the n bytes of src at offset
// at are those it was decoded from. They are compared a window at a time
// through a pooled buffer: a fresh buffer the size of a large footer
// costs more in first-touched pages than the comparison.
func (c *Cache) kept(src io.ReaderAt, key string, at, n int64) (*metadata.FileMetaData, error) {
	if c == nil {
		return nil, nil
	}
	c.mu.Lock()
	e, ok := c.by[key]
	c.mu.Unlock()
	if !ok || int64(len(e.raw)) != n {
		return nil, nil
	}
	bp := windows.Get().(*[]byte)
	defer windows.Put(bp)
	buf := *bp
	for off := int64(0); off < n; off += int64(len(buf)) {
		w := buf[:min(int64(len(buf)), n-off)]
		if _, err := src.ReadAt(w, at+off); err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("parquet: could not read footer: %w", err)
		}
		if !bytes.Equal(w, e.raw[off:off+int64(len(w))]) {
			return nil, nil
		}
	}
	return e.md, nil
}

// windows are the buffers kept footers are compared through.
var windows = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

func (c *Cache) keep(key string, raw []byte, md *metadata.FileMetaData) {
	if c == nil {
		return
	}
	limit := c.Max
	if limit <= 0 {
		limit = MaxBytes
	}
	if int64(len(raw)) > limit/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.by[key]; ok {
		c.bytes -= int64(len(old.raw))
	}
	if c.by == nil || c.bytes+int64(len(raw)) > limit {
		c.by, c.bytes = map[string]entry{}, 0
	}
	c.by[key] = entry{raw: raw, md: md}
	c.bytes += int64(len(raw))
}

// Len is the number of footers kept.
func (c *Cache) Len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.by)
}
