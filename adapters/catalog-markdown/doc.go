// Package mdcatalog reads a sutura catalogue written as a tree of Markdown
// documents (docs/contract.md §2) and pins it as a *domain.Bundle.
//
// Every *.md file of the tree is one document: YAML front matter between a
// first line "---" and the next "---" line, then a Markdown body. The
// front matter's kind selects a JSON Schema (draft 2020-12, embedded in this
// package and published under docs/schemas/) that fixes its keys; the body
// is the description of a model, relationship or metric and the note of a
// glossary entry, caveat, not_defined phrase or example. Directory names
// carry no meaning and files are read in sorted path order.
//
// Loading runs in three stages, and every stage reports all it finds:
//
//  1. each document is split, parsed as YAML and validated against its
//     kind's schema;
//  2. when every document is well formed, the documents are turned into
//     domain definitions and knowledge (duplicate names are found here);
//  3. domain.NewBundle runs domain.Check, and each *domain.Problem is
//     mapped back to the file, line and column of the key it is about.
//
// Every error is an *Error naming the file, line, column and key path, and
// wraps one of the exported sentinels. No error ever quotes a value written
// in the catalogue: values may be secrets or hostile text, so reasons name
// keys and catalogue names only.
package mdcatalog
