// Package exactcheck holds the property test of exact numbers
// (docs/reference.md, Numbers): seeded random tables — decimals of several
// scales, with values near the 18- and 38-digit limits, doubles of mixed
// magnitudes, nulls — written as CSV, Parquet and NDJSON, answered by the
// embedded engine on every format (several worker counts, shuffled rows,
// declared and inferred scales), and loaded into DuckDB, PostgreSQL,
// ClickHouse and chDB (where their tiers run); random questions must give cells
// byte-identical everywhere and equal to DuckDB's exact SUM(DECIMAL), and
// every float sum must be the exact sum rounded once.
//
// The package has no code of its own; it exists for its test, which links
// DuckDB and the drivers, so that neither the server binary nor the engine
// does.
package exactcheck
