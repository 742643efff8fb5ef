// Package column holds the engine's columns: one loaded column of a table
// as a contiguous Arrow array with typed views (int64, float64, date32,
// boolean, and text dictionary-encoded to int32 indexes), the builders
// that parse values into a column (declared or inferred type, validity
// only, whole Arrow arrays at once), the segments a table is read and
// scanned in, and the structures derived from a column on demand (day
// zones, group codes, byte-order ranks, the dictionary lookup, the join
// index), which a Derived holds beside the column, never inside it.
//
// Contract: a Column is immutable once built and points to nothing but
// its data. Whoever holds a column owns its Derived: the cache entry of a
// cached column (its Owner, to which every derived byte is accounted
// against the working set), or a combine for the columns it builds (no
// Owner: nothing accounted). Each derived structure is built once, under
// its own lock, and kept only when its build succeeded. A builder refuses
// a value that does not parse as its type with ErrNotType. It imports no
// other package of the engine.
package column
