// Package files finds a table's files in a source's fs.FS and opens them:
// the mapping from a file name to its format (Parquet, CSV, NDJSON) and
// whole-file compression (gzip, zstd), a table as one file or a directory
// of parts in name order, and the file identity (path, size, modification
// time of every part) that keys the column cache.
//
// Contract: Locate refuses two candidates for one table and a path that a
// symbolic link takes out of the data directory (an error wrapping
// ErrOutsideDataDir); OpenPart returns the decompressed bytes of one part.
// It imports nothing of the engine: it is the lowest of its packages.
package files
