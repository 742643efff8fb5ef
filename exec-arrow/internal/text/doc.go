// Package text cuts CSV and NDJSON text into records and CSV records into
// fields, as the engine's streaming reader and the Loader read them: a
// Splitter finds where records end (in CSV a line end inside a quoted
// field does not end one: the parity of the quotes since the record began
// tells), SplitFields cuts a record free of quotes and carriage returns
// at its commas eight bytes at a time, and CSVFields leaves any other
// record to encoding/csv.
//
// Contract: the records and fields found are those encoding/csv finds in
// the same bytes, for every input encoding/csv reads without an error
// (FuzzSplitter, FuzzSplitFields, and the format package's loader target
// check it); input this package does not cut itself is reported
// (ErrFastPath, a field count of -1), never guessed at. It imports column
// of the engine's packages, nothing above it.
package text
