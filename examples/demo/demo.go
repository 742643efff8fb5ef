// Package demo embeds sutura's demonstration catalogue and data set: the
// orders of Larch & Loom, a small homewares retailer with shops in four
// sales regions and a web shop.
//
// Catalog returns the catalogue (Markdown documents with YAML front matter:
// models, relationships, metrics and knowledge) and Data returns the data
// set (one CSV file per model table, <table>.csv). Every model in the
// catalogue names the source alias SourceAlias, so a `files` source with
// that alias over Data serves the whole catalogue. With no configuration,
// sutura serves exactly this pair, stamped with the label Version.
//
// The data set is produced by the generator in ./gen with DataRows order
// rows; `go generate` in this directory regenerates it, and the package
// tests check that the committed files are what the generator produces and
// that every metric anchor in the catalogue matches the data.
package demo

import (
	"embed"
	"io/fs"
)

//go:generate go run ./gen --rows 12000 --format csv --out data

const (
	// SourceAlias is the source alias every demo model names.
	SourceAlias = "demo"
	// Version is the version label of the demo catalogue. Change it
	// whenever the meaning of the catalogue or the data changes.
	Version = "demo-1"
	// DataRows is the --rows value the committed data set was generated
	// with (see the go:generate directive in this file).
	DataRows = 12000
)

//go:embed catalog
var catalogFS embed.FS

//go:embed data
var dataFS embed.FS

// Catalog returns the demo catalogue, rooted at the catalogue directory:
// models/, relationships/, metrics/ and knowledge/ hold one document each
// per file. The result is read-only and safe for concurrent use.
func Catalog() fs.FS { return sub(catalogFS, "catalog") }

// Data returns the demo data set, rooted at the data directory: one CSV
// file per model table (regions.csv, products.csv, customers.csv,
// orders.csv) with a header row. The result is read-only and safe for
// concurrent use.
func Data() fs.FS { return sub(dataFS, "data") }

func sub(fsys embed.FS, dir string) fs.FS {
	s, err := fs.Sub(fsys, dir)
	if err != nil {
		// Unreachable: dir is a fixed, embedded, valid path.
		panic("demo: " + err.Error())
	}
	return s
}
