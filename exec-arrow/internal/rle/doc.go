// Package rle decodes Parquet's RLE/bit-packed hybrid encoding, in which
// a data page stores its definition levels and its dictionary indexes:
// runs of one repeated value and runs of bit-packed groups of eight
// (docs/performance.md, "Decoding untuned Parquet (dec)"). It reads from a
// byte slice and never panics on malformed input: a run that ends early
// or a header out of bounds is an error.
package rle
