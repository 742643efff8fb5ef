// Package dbt imports the semantic layer of a dbt project (MetricFlow's
// semantic models and metrics) into sutura's catalogue vocabulary.
//
// Read takes the files of a project (YAML with semantic_models: and
// metrics: lists, or one semantic_model: or metric: per document) or one
// semantic_manifest.json, and returns domain definitions and one entry per
// construct read, saying what it became or why it was refused. Nothing
// outside the closed vocabulary is approximated: median and percentile
// measures, SQL expressions, semi-additive measures, derived, cumulative
// and conversion metrics, filters other than the four required-filter
// forms, filters on joined models, sub-day granularities and natural
// entities are refused by name. The mapping is documented in
// docs/importing.md.
//
// Its YAML is read with adapters/importread, the reader every importer
// shares, into importread's format-independent Result. The package reads
// bytes the caller has already read (bounded, and never through a
// symbolic link out of the input) and performs no I/O itself.
package dbt
