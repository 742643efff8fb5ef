// Package importread is what every importer of another semantic layer's
// definitions (adapters/import-dbt, import-cube, import-osi) shares: the
// YAML reader and the result it hands the catalogue writer.
//
// The reader parses the bytes of one file the caller has already read
// (bounded: at most MaxDocuments YAML documents and MaxValues values
// visited through aliases, and yaml.v3's panics on hostile input become
// errors) into Nodes, which walk mappings (merge keys included), lists
// and scalars without ever panicking, carry the key path that leads to
// them (semantic_models[2].measures[0]) and the line they start on, and
// record what is malformed in the input's Errors. Neither an error nor a
// key path ever quotes a value of the input: a syntax error keeps only
// its line.
//
// The result is format-independent: definitions in the catalogue's
// vocabulary, the categorical dimensions of each model, glossary entries,
// and one Entry per construct read saying what became of it.
//
// It imports only domain and yaml.v3, and does no I/O.
package importread
