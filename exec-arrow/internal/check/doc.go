// Package check holds the engine's start-up checks of a table's files
// (docs/operations.md, "Start-up on large files"): Parquet footers that
// vouch for declared types, a bounded sample of every CSV or NDJSON part,
// the whole read of those parts that start-up deferred, the day span a
// Parquet footer tells, and the models a failed deferred read withdrew.
//
// Contract: Table reads no Parquet data the footer vouches for and at most
// SampleRows records (rounded up to the loader's batch) of each text part
// of a model whose columns all declare a type; what it did not read it
// returns, for Whole. An error names file, column and line, never a value.
package check
