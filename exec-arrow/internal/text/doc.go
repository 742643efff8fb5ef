// Package text cuts CSV and NDJSON text into records and CSV records into
// fields, as the engine's streaming reader and the Loader read them: a
// Splitter finds where records end (in CSV a line end inside a quoted
// field does not end one: the parity of the quotes since the record began
// tells, and it remembers whether a record held a quote), SplitFields
// cuts a record free of quotes and carriage returns at its commas eight
// bytes at a time (SplitUnquoted one the splitter saw no quote in, its
// carriage returns bytes like others), and CSVFields leaves any other
// record to encoding/csv. A Ranged reads a part by byte range, so that
// workers split one file at once: NDJSON at any line end, CSV once the
// quotes of the ranges before a range tell whether it starts inside a
// quoted field (Quotes). Late narrows a block to the records whose time
// its caller finds in a range, building the block's time column (a
// TimeBuilder, reused) as each CSV record is split or each NDJSON line
// scanned for its time member. An Object reads the wanted members of an
// NDJSON line in one scan, without decoding the line into a map.
//
// Contract: the records and fields found are those encoding/csv finds in
// the same bytes, for every input encoding/csv reads without an error
// (FuzzSplitter, FuzzSplitFields, FuzzCSVRanges, and the format
// package's loader target check it), and the members an Object reads are
// those encoding/json puts in a map[string]json.RawMessage (FuzzObject,
// FuzzLoaderNDJSON); input this package does not read itself is reported
// (ErrFastPath, a field count of -1, Object.Read's false), never guessed
// at. It imports column of the engine's packages, nothing above it.
package text
