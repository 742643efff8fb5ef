// Package importcheck holds the test that imported definitions keep their
// meaning: it imports a dbt project, a Cube model and an OSI model with
// the importers and the shared catalogue writer, loads the result with the
// catalogue loader, answers every imported metric with the embedded engine
// on generated data, and compares each answer with SQL written by hand
// from the input's own definitions, run by DuckDB on the same files.
//
// The package has no code of its own; it exists for its test, which links
// DuckDB, so that neither the server binary nor the importers do.
package importcheck
