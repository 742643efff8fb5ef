// Package format reads a table's files into columns: a Loader reads the
// parts of one table (Parquet, CSV, NDJSON, optionally compressed) into
// one column builder per wanted column, recording the segments it read;
// below it, Parquet is decoded from its pages: whole Arrow records, flat
// column chunks of PLAIN and dictionary pages straight into a worker's
// buffers (PageChunk: levels and values, text kept dictionary-encoded;
// streamed, its pages read from the file itself, header by header,
// into memory each worker reuses, and a page none of whose rows is
// wanted neither decompressed nor decoded), and validity read
// from definition levels alone (ValidReader), row-group statistics as day
// zones (StatsZone), Arrow arrays as batch columns (BatchColumn); CSV and
// NDJSON are cut into records by package text's Splitter. Guard turns a panic in a
// goroutine the engine starts into an error.
//
// Contract: a Parquet footer is not taken at its word where it sizes work
// (row counts are checked, a page may declare at most PageLimit bytes
// uncompressed, a page the library panics on is an error naming the
// file); a value that does not parse as its column's type is an error
// naming the file, the column and the line or row, never the value. The
// context is checked every 4 096 lines and the working set (the Loader's
// meter) every 65 536 rows. It imports thrift, files and column of the
// engine's packages, nothing above them.
package format
