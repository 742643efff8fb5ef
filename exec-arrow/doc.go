// Package engine is sutura's embedded execution engine: it reads CSV,
// Parquet and NDJSON files into Arrow, caches the tables and executes plans
// without SQL.
//
// It is filled by the engine issue; until then it declares nothing.
package engine
