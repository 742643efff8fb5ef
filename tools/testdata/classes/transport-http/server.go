// Package http imports a catalogue: a breach of allowed-imports, not of
// adapter-classes, which only looks inside one class.
package http

import markdown "sutura.dev/adapters/catalog-markdown"

// Serve serves a read.
var Serve = markdown.Read
