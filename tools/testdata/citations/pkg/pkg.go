// Package pkg plants citations: good ones (docs/contract.md §1, §1.2 as
// docs/contract.md §1.2, and docs/contract.md
// §4. at the end of a sentence), and bad ones below.
package pkg

// Bad: the private specification (product.md §4.2).
var A = 1

// Bad: a section the document lacks (docs/contract.md §7).
var B = 2

// Bad: a document that does not exist (docs/missing.md).
var C = 3

/* Bad: the house style of another document (architecture.md §3.8). */
var D = 4

// Fine: the private specification's name stands in the string below,
// which is not a comment.
var E = "product.md"
