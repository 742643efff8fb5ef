// Package domain is sutura's vocabulary: identifiers and dimension values,
// dates, ranges and grains, the question an agent may ask, the definitions
// and knowledge of a catalogue, the pinned bundle and its digest, refusal
// reasons with their codes and statuses, outcomes with their row sets and
// canonical cells, provenance, the realized cost of a question, principals
// and capabilities.
//
// It imports only the standard library, so an embedder can depend on it
// alone. Nothing here performs I/O.
package domain
