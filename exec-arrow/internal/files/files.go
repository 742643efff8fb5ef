package files

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/parquet/compress"
)

// Format is a file format the files source reads.
type Format uint8

const (
	FormatCSV Format = iota + 1
	FormatNDJSON
	FormatParquet
)

// Codec is a whole-file compression.
type Codec uint8

const (
	CodecNone Codec = iota
	CodecGzip
	CodecZstd
)

// Part is one file of a table.
type Part struct {
	Path   string // within the source's fs.FS
	Format Format
	Codec  Codec
	Size   int64
	Mtime  int64 // UnixNano
}

// Table is where a table lives and the identity of its files at the
// moment they were found: a change of any path, size or modification time
// is a different identity and invalidates the cache.
type Table struct {
	Name  string // the bare table name
	Parts []Part
	ID    string
}

var formatExts = []struct {
	ext    string
	format Format
}{
	{".parquet", FormatParquet},
	{".csv", FormatCSV},
	{".ndjson", FormatNDJSON},
	{".jsonl", FormatNDJSON},
}

var codecExts = []struct {
	ext   string
	codec Codec
}{
	{"", CodecNone},
	{".gz", CodecGzip},
	{".zst", CodecZstd},
}

// classify returns the format and compression a file name denotes.
func classify(name string) (Format, Codec, bool) {
	for _, c := range codecExts[1:] {
		if strings.HasSuffix(name, c.ext) {
			f, _, ok := classifyPlain(strings.TrimSuffix(name, c.ext))
			return f, c.codec, ok
		}
	}
	return classifyPlain(name)
}

func classifyPlain(name string) (Format, Codec, bool) {
	for _, f := range formatExts {
		if strings.HasSuffix(name, f.ext) && len(name) > len(f.ext) {
			return f.format, CodecNone, true
		}
	}
	return 0, CodecNone, false
}

// Locate finds the files of table in fsys: exactly one of <table>.<format>
// [.gz|.zst] or a directory <table>/ whose regular files of those formats
// (names not starting with "." or "_") are its parts, in name order.
func Locate(fsys fs.FS, table string) (*Table, error) {
	if !fs.ValidPath(table) || strings.Contains(table, "/") {
		return nil, fmt.Errorf("table %q is not a file name", table)
	}
	var found []Part
	var names []string
	for _, f := range formatExts {
		for _, c := range codecExts {
			name := table + f.ext + c.ext
			st, err := fs.Stat(fsys, name)
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					continue
				}
				return nil, fmt.Errorf("file %s: %w", name, err)
			}
			if st.IsDir() {
				continue
			}
			if err := confine(fsys, name); err != nil {
				return nil, err
			}
			found = append(found, Part{Path: name, Format: f.format, Codec: c.codec, Size: st.Size(), Mtime: st.ModTime().UnixNano()})
			names = append(names, name)
		}
	}
	st, err := fs.Stat(fsys, table)
	switch {
	case err == nil && st.IsDir():
		if err := confine(fsys, table); err != nil {
			return nil, err
		}
		parts, err := dirParts(fsys, table)
		if err != nil {
			return nil, err
		}
		if len(found) > 0 {
			return nil, fmt.Errorf("table %s: both %s and the directory %s/ exist", table, names[0], table)
		}
		found = parts
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("file %s: %w", table, err)
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("table %s: no file %s.csv, .parquet, .ndjson or .jsonl (optionally .gz or .zst), nor a directory %s/", table, table, table)
	}
	if len(names) > 1 {
		return nil, fmt.Errorf("table %s: more than one file holds it (%s)", table, strings.Join(names, ", "))
	}
	var id strings.Builder
	for _, p := range found {
		id.WriteString(p.Path)
		id.WriteByte(0)
		id.WriteString(strconv.FormatInt(p.Size, 10))
		id.WriteByte(0)
		id.WriteString(strconv.FormatInt(p.Mtime, 10))
		id.WriteByte(0)
	}
	return &Table{Name: table, Parts: found, ID: id.String()}, nil
}

func dirParts(fsys fs.FS, dir string) ([]Part, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("directory %s: %w", dir, err)
	}
	var parts []Part
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
			continue
		}
		if e.Type()&fs.ModeSymlink == 0 && !e.Type().IsRegular() {
			continue
		}
		f, c, ok := classify(name)
		if !ok {
			continue
		}
		if err := confine(fsys, path.Join(dir, name)); err != nil {
			return nil, err
		}
		info, err := fs.Stat(fsys, path.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("file %s: %w", path.Join(dir, name), err)
		}
		if info.IsDir() {
			continue
		}
		parts = append(parts, Part{Path: path.Join(dir, name), Format: f, Codec: c, Size: info.Size(), Mtime: info.ModTime().UnixNano()})
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("directory %s/ holds no CSV, Parquet or NDJSON file", dir)
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i].Path < parts[j].Path })
	return parts, nil
}

// OpenPart opens p for streaming, decompressing it.
func OpenPart(fsys fs.FS, p Part) (io.ReadCloser, error) {
	f, err := fsys.Open(p.Path)
	if err != nil {
		return nil, fmt.Errorf("file %s: %w", p.Path, err)
	}
	switch p.Codec {
	case CodecGzip:
		z, err := gzip.NewReader(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("file %s: %w", p.Path, err)
		}
		return &stacked{Reader: z, closers: []io.Closer{z, f}}, nil
	case CodecZstd:
		cd, err := compress.GetCodec(compress.Codecs.Zstd)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("file %s: %w", p.Path, err)
		}
		sc, ok := cd.(compress.StreamingCodec)
		if !ok {
			f.Close()
			return nil, fmt.Errorf("file %s: zstd streaming is not available", p.Path)
		}
		z := sc.NewReader(f)
		return &stacked{Reader: z, closers: []io.Closer{z, f}}, nil
	}
	return f, nil
}

// stacked closes a decompressor and the file under it.
type stacked struct {
	io.Reader
	closers []io.Closer
}

func (s *stacked) Close() error {
	var first error
	for _, c := range s.closers {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// ErrOutsideDataDir is the error of a table file, a table directory or a
// part of one that leaves the source's data directory: a symbolic link
// whose target is absolute or climbs out of it. Such a file is never
// read.
var ErrOutsideDataDir = errors.New("the path leaves the data directory")

// maxLinks bounds the symbolic links one path may pass through.
const maxLinks = 40

// confine refuses a path of fsys that resolves outside it. It follows the
// path's symbolic links one component at a time (when fsys can read links,
// as os.DirFS can); a link must be relative and stay inside the
// directory. A file system that cannot read links (the embedded demo, or
// an os.Root's, which refuses escapes itself) passes.
func confine(fsys fs.FS, name string) error {
	rl, ok := fsys.(fs.ReadLinkFS)
	if !ok {
		return nil
	}
	links := 0
	if _, err := resolveIn(rl, name, &links); err != nil {
		if errors.Is(err, ErrOutsideDataDir) {
			return fmt.Errorf("file %s: %w (a symbolic link points outside it)", name, ErrOutsideDataDir)
		}
		return fmt.Errorf("file %s: %w", name, err)
	}
	return nil
}

// resolveIn walks name component by component, resolving links, and
// returns the path with no link in it, or ErrOutsideDataDir when a link
// leads out of the root. Every prefix it joins onto is already resolved,
// so a ".." in a link's target is the physical parent.
func resolveIn(rl fs.ReadLinkFS, name string, links *int) (string, error) {
	cur := "."
	for _, c := range strings.Split(name, "/") {
		next := path.Join(cur, c)
		if next == ".." || strings.HasPrefix(next, "../") {
			return "", ErrOutsideDataDir
		}
		fi, err := rl.Lstat(next)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return next, nil // a missing file is reported by whoever opens it
			}
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if *links++; *links > maxLinks {
			return "", errors.New("too many symbolic links")
		}
		target, err := rl.ReadLink(next)
		if err != nil {
			return "", err
		}
		if path.IsAbs(target) || filepath.IsAbs(target) || filepath.VolumeName(target) != "" {
			return "", ErrOutsideDataDir
		}
		t := path.Join(cur, filepath.ToSlash(target))
		if t == ".." || strings.HasPrefix(t, "../") {
			return "", ErrOutsideDataDir
		}
		if cur, err = resolveIn(rl, t, links); err != nil {
			return "", err
		}
	}
	return cur, nil
}
