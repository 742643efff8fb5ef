// Package chdbtest runs the clickhouse dialect on a current ClickHouse
// engine, in process: chDB's libchdb.so (from the npm package
// @chdb/lib-linux-x64-gnu, ClickHouse 26.x), loaded at run time with
// dlopen through a small cgo shim. It is a test-only module, so that the
// adapter and the server binary never link chDB.
//
// Its System renders plans with semantic's clickhouse dialect and executes
// them with the engine's own typed parameter binding
// (chdb_query_with_params) under the session settings the adapter sends
// (readonly = 1, join_use_nulls = 1, session_timezone UTC), reading the
// results as canonical cells. Its tests run the conformance corpus and a
// random-question differential against the embedded engine on it, and the
// same suites through the adapter on the real server of SUTURA_CH_URL
// (the wire, where the server's version allows).
//
// chDB's Go bindings (github.com/chdb-io/chdb-go) are not used: they load
// the library in an init function that panics when it is missing, which
// would turn "NOT RUN" into a crashed test binary, and they bring a
// command-line client's dependencies with them.
//
// The library is the file SUTURA_CHDB_LIB names (scripts/chdb prints
// it). Without it, Lib skips the test with "NOT RUN: chdb
// (SUTURA_CHDB_LIB unset)", or fails it when SUTURA_REQUIRE_TIERS lists
// chdb, as CI sets it.
package chdbtest
