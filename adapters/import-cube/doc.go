// Package cube imports a Cube data model (cubes: and views: YAML) into
// sutura's catalogue vocabulary.
//
// Read takes the files of a model directory and returns domain definitions
// and one entry per construct read, saying what it became or why it was
// refused. A cube becomes a model over its sql_table; each measure a
// metric named <cube>_<measure> over the cube's one time dimension, with
// all five grains; its non-time dimensions are the metrics' dimensions; a
// join on an equality of two columns becomes a relationship (one_to_many
// read from the other side). Nothing outside the closed vocabulary is
// approximated: expression SQL, sub-queries, rolling windows, multi-stage,
// approximate and running measures, references to another cube's
// measure, segments and access policies are refused by name, templated and
// JavaScript or Python models are refused as whole files, and
// pre-aggregations and presentation keys are listed as ignored. The
// mapping is documented in docs/importing.md.
//
// Its YAML is read with adapters/importread, the reader every importer
// shares, into importread's format-independent Result. The package reads
// bytes the caller has already read and performs no I/O itself.
package cube
