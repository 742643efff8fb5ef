package files

import (
	"errors"
	"io"
	"io/fs"
	"sync/atomic"
)

// Counting returns fsys, with the bytes read through every file it opens
// (Read and ReadAt) added to n: what an execution read, for its cost.
func Counting(fsys fs.FS, n *atomic.Int64) fs.FS { return countingFS{FS: fsys, n: n} }

// countingFS counts the bytes read through the files it opens.
type countingFS struct {
	fs.FS
	n *atomic.Int64
}

func (c countingFS) Open(name string) (fs.File, error) {
	f, err := c.FS.Open(name)
	if err != nil {
		return nil, err
	}
	return &countingFile{File: f, n: c.n}, nil
}

// countingFile counts Read and ReadAt; it offers ReadAt and Seek only as
// far as the file under it does.
type countingFile struct {
	fs.File
	n *atomic.Int64
}

var errNoRandomAccess = errors.New("the file does not allow random access")

func (f *countingFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	f.n.Add(int64(n))
	return n, err
}

func (f *countingFile) ReadAt(p []byte, off int64) (int, error) {
	ra, ok := f.File.(io.ReaderAt)
	if !ok {
		return 0, errNoRandomAccess
	}
	n, err := ra.ReadAt(p, off)
	f.n.Add(int64(n))
	return n, err
}

func (f *countingFile) Seek(off int64, whence int) (int64, error) {
	s, ok := f.File.(io.Seeker)
	if !ok {
		return 0, errNoRandomAccess
	}
	return s.Seek(off, whence)
}
