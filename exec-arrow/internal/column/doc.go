// Package column holds the engine's columns: one loaded column of a table
// as a contiguous Arrow array with typed views (int64, float64, date32,
// boolean, and text dictionary-encoded to int32 indexes), the builders
// that parse values into a column (declared or inferred type, validity
// only, whole Arrow arrays at once), the segments a table is read and
// scanned in with their day zones, and what is derived from one column on
// demand: group codes, byte-order ranks, the dictionary lookup and the
// join index.
//
// Contract: a Column is immutable once built; a derived structure is
// built once, under its own lock, and kept only when its build succeeded.
// A cached column's derived bytes are accounted to its Owner (the cache
// entry, through the Owner interface: the column knows nothing of the
// cache); a streamed batch's column has no Owner and accounts nothing.
// A builder refuses a value that does not parse as its type with
// ErrNotType. It imports no other package of the engine.
package column
