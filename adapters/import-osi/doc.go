// Package osi imports an Open Semantic Interchange (Apache Ossie) semantic
// model into sutura's catalogue vocabulary.
//
// Read takes a semantic_model: YAML file (spec 0.x, with a top-level
// version, or 1.0) and returns domain definitions and one entry per
// construct read, saying what it became or why it was refused. A dataset
// whose source is a table becomes a model (a field's datatype is its
// column's type); a relationship over single columns becomes a many_to_one
// relationship; a metric whose ANSI_SQL expression is one aggregate over
// one column (SUM(t.c), COUNT(DISTINCT t.c), ...) or one such aggregate
// divided by another over the same dataset becomes a metric over the
// dataset's one time field (dimension.is_time), with all five grains; a
// metric's ai_context synonyms become a glossary entry. Everything else is
// refused by name. The mapping is documented in docs/importing.md.
//
// Its YAML is read with adapters/importread, the reader every importer
// shares, into importread's format-independent Result. The package reads
// bytes the caller has already read and performs no I/O itself.
package osi
