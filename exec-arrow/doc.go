// Package engine is sutura's embedded execution engine, the `files`
// source: it reads CSV, Parquet and NDJSON files into Arrow, caches the
// columns plans need, and executes plans without SQL.
package engine
