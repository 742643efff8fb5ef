// Package engine is sutura's embedded execution engine, the `files`
// source: it reads CSV, Parquet and NDJSON files into Arrow, caches the
// columns plans need, and executes a domain.Plan without SQL. The SQL
// dialects of package semantic follow the same semantics, so one question
// gives the same rows here as on every database.
//
// # Files
//
// A model's table is found by the last segment of its table path, in the
// source's fs.FS: exactly one of <table>.parquet, <table>.csv,
// <table>.ndjson or <table>.jsonl, each optionally compressed as .gz or
// .zst, or a directory <table>/ whose regular files of those kinds (names
// not starting with "." or "_") are the parts of one table, read in name
// order. Two candidates for one table are an error.
//
// CSV files have a header row; an empty field is null. NDJSON holds one
// object per line (blank lines are skipped); an absent key, JSON null and
// "" are null; strings, numbers (their literal) and booleans are read as
// the text of the value; arrays and objects are refused. Parquet columns
// are converted from their Arrow type (integers, floats, decimals,
// booleans, dates, timestamps, strings, dictionaries of strings); an empty
// string is null in every format.
//
// A Parquet footer is not taken at its word where it sizes work: a row
// group declaring a negative count or more than 2^31-1 rows, or a file
// total that is not the sum of its row groups, is an error; row groups
// are decoded batch by batch (a row group whose pages hold fewer rows
// than declared is an error); and a page may declare at most 64 times the
// file's size uncompressed (at least 4 MiB, at most 256 MiB), so a small
// hostile file cannot make the reader allocate more. A page the Parquet
// library panics on is an error naming the file.
//
// A column's type is the model's declared type; otherwise it is inferred
// from the whole column: the first of integer, float, boolean, date,
// timestamp that every non-null value parses as, else text (an all-null
// column is text). Dates are YYYY-MM-DD, timestamps RFC 3339 (stored as
// UTC microseconds), booleans true/false. A decimal column is held exactly:
// coefficients at one scale (its declared scale, else the most fractional
// digits a value is written with), as int64 while every value fits and as
// Arrow Decimal128 otherwise; CSV and NDJSON decimal text is parsed
// exactly, a Parquet DECIMAL read exactly (an undeclared one is decimal),
// and a value with more fractional digits than the declared scale (other
// than zeros) or more digits than the precision is an error. A
// missing file, a missing column, or a value that does not parse as its
// declared type is an error naming the file, the column and the line (or
// the row, for Parquet); it never holds the value. Validate parses every
// declared column a Parquet footer does not vouch for, and the first
// SampleRows records of a CSV or NDJSON part; CheckDeferred reads the rest
// and withdraws a model it fails on (Ready, and questions on it fail as
// unavailable). A question parses only the columns whose values it reads
// (a column it only counts is never parsed), and of a streamed CSV or
// NDJSON block, past its time and filter columns, only the rows that may
// count: a value that does not parse in a row the range or a filter
// drops does not stop it. A CSV block whose records mostly fall outside
// the range has only its time field split at first; the other fields
// are split for the records in the range (every record's field count is
// checked all the same).
//
// # Streaming, cache and working set
//
// The column cache is an optimisation, not a precondition. A question
// whose base-table columns are all cached (at the files' current identity:
// path, size and modification time of every part) scans them; otherwise it
// streams the files through the same aggregation: Parquet row groups
// (only the wanted column chunks; a row group whose time-column statistics
// miss the range is skipped before any page of it is read), CSV blocks of
// 65 536 records cut by one reader and parsed on every core, and an
// uncompressed NDJSON file in ranges of 8 MiB that every core reads and
// cuts itself (a compressed one as CSV is).
// Joined (lookup) tables are always read whole into the cache, since a join
// reaches their rows by position. A column read only for its validity (the
// input of count, an is_not_null filter) is read from Parquet definition
// levels, or not at all when the footer says the row group has no null,
// and cached as a bitmap; count_distinct over text numbers the values the
// question meets by their bytes, never a dictionary of the whole column,
// and over an integer or date column the row-group statistics bound, by
// offset.
//
// After a streamed answer, the columns it read are read into the cache in
// the background, on one goroutine, when they fit in the working set
// beside what running questions hold and the working memory that question
// took (Config.NoCacheFill turns this off; Settle waits for it). Text
// columns are cached dictionary-encoded.
//
// A process that knows the plans it is about to execute (a one-shot
// command's anchors and its question) hands them to Prepare: the plans
// that would each stream one table are answered in one scan of its files,
// each column read once for the rows any of them may count, and Execute
// of an equal plan takes that answer, once, while the files are those
// scanned. A plan Prepare could not answer so is executed as before.
//
// Everything the engine holds is accounted against
// Config.WorkingSetMaxBytes: cached columns and what is derived from them
// (group codes, join indexes, byte-order ranks), a load while it grows, a
// background fill, and the working memory of each running question (batch
// buffers, groups, aggregates, distinct sets). When a reservation does not
// fit, the least recently used columns no running question holds are
// evicted, column by column, and a background fill is stopped; a question
// answered from the cache that still does not fit (it holds its own cached
// columns) is asked again streaming. Only a question whose own working
// memory cannot fit is refused with resources_exhausted: a table larger
// than the working set is streamed, never refused for its size.
//
// # Files and links
//
// A table file, table directory or part that a symbolic link takes out of
// the data directory (an absolute target, or one climbing above it) is
// refused with an error wrapping ErrOutsideDataDir, at start (Validate)
// and when asked; links that stay inside are followed.
//
// # Execution semantics
//
// A plan has one leg, Legs[0], on this source: a question's whole answer,
// or one leg of a federated plan (domain.Plan.LegPlan). The leg of a
// federated plan's base is executed like any other (its group keys may be
// up to twelve: its dimensions and the key of each crossing), without
// ordering its rows or bounding their bytes, up to its row cap
// (governance.max_leg_rows). A lookup leg returns, without grouping, the
// rows of its base table whose key is not null, with the columns its
// joins reach, filtered by its filters; its tables are read whole into
// the cache like any joined table. The leg scans Base (alias
// t0) and LEFT JOINs the tables of Joins in order, each To table reached
// from FromAlias.FromColumn = To.ToColumn. A key matching no row, or a null
// key, gives null values for every column of that table and the tables
// reached through it. A key held by two rows of a joined table is an error:
// a dimension join must reach at most one row.
//
// Rows enter when:
//
//   - the time column (date, or timestamp bucketed by its UTC date) is in
//     [Range.Start, Range.End); a null time never enters;
//   - every caller filter passes: eq and in keep rows whose value is one of
//     Values, not_in keeps rows whose value is none of Values and rows where
//     it is null. Values are text compared with the canonical rendering of
//     the column's value (domain.Cell Render): an integer 5 matches "5"
//     (not "05"), booleans "true"/"false", dates YYYY-MM-DD, timestamps
//     RFC 3339 in UTC;
//   - the required filters of at least one metric pass. Required filters
//     are per metric and read base-table columns: equals (the rendering
//     equals the value; null fails), not_equals (non-null and different;
//     null fails, as in SQL), is_true (true only), is_not_null.
//
// Rows are grouped by the dimensions, in order, and the period,
// Grain.Truncate of the row's date (weeks start on Monday; a period may
// start before Range.Start). Each metric aggregates only the rows of the
// group that pass its own required filters, and its cell is null in a group
// where none do. Terms:
//
//   - sum: integers give an integer, floats a real (compensated: each
//     addition's rounding error is kept and added back, so the sum does
//     not depend on row order or worker count, docs/reference.md),
//     decimals an exact decimal (128-bit accumulators; past 38 digits an
//     error wrapping domain.ErrDecimalOverflow naming the metric); null
//     when the group has no non-null value;
//   - count: the non-null values (an integer);
//   - count_distinct: the distinct non-null values (an integer);
//   - avg: a real (of a decimal column, the real nearest the exact
//     quotient); null when there is no non-null value;
//   - min, max: the column's type (dates as dates, text by binary order,
//     timestamps as RFC 3339 text); null when there is no non-null value;
//   - count_if: the rows where the boolean column is true (an integer).
//
// A ratio divides its numerator by its denominator as float64 (each the
// float64 nearest its exact value); a null
// numerator or denominator gives null; a zero denominator gives null under
// yields_null and, under fails, an error wrapping domain.ErrZeroDenominator
// that names the metric (for any group, as SQL would fail).
//
// # Answer
//
// Columns are plan.Columns: the dimensions (cells of the column's type),
// period (a date), one column per metric. Rows are ordered by every key
// ascending, dimensions then period, nulls last, text by its bytes. With
// plan.Top, rows are ranked by the metric (by=metric) or the period
// (by=period) in Top's direction with nulls last, then by the keys
// ascending, and the first Top.N are kept. More than plan.RowCap rows
// (domain.MaxRowCap when zero), or cells rendering to more than
// domain.MaxResultBytes, are refused with result_too_large.
//
// # Refusals, cancellation, errors
//
// Refusals are a *domain.RefusalError carrying the domain.Reason (use
// errors.As; app's surface turns it into a refusal outcome): result_too_large, resources_exhausted, deadline_exceeded
// (the context's deadline passed), federation_not_executable (a plan of
// several legs, which is combined rather than executed, or a leg grouped
// by more columns than the engine's twelve). A cancelled context returns
// ctx.Err(). The scan checks the
// context every batch of at most 65 536 rows, and loads every 4 096 lines,
// so a cancelled question stops within milliseconds. Other errors (a plan naming an
// unknown column, a sum over text, load errors) are failures.
//
// # Combine
//
// Combiner computes a federated plan's answer from its legs' rows
// (domain.Combine) with the same kernels: the base leg's rows become typed
// columns (each column's type told by its cells: integers, reals, dates,
// booleans, text, timestamps where the model declares them) scanned in
// segments by the producer of cached columns; each lookup leg's rows are a
// joined table, reached from the key column by the same join steps (an
// unmatched or null key gives nulls, a key held twice is refused as
// federated_answer_not_well_formed); the remote filters are the same
// predicates; partials are re-aggregated by the term kernels (sums,
// counts and count_ifs summed, mins and maxes kept, avg as a summed sum
// over a summed count) and the answer is finished, ordered, ranked and
// bounded by the code of every answer. Its working memory counts against
// the working set of the engine it comes from (Engine.Combiner) or one of
// its own (NewCombiner).
//
// # Execution
//
// A producer yields the base table's rows as batches of at most 65 536
// rows, each holding one column per column the question reads: cached
// columns segment by segment (zone maps — the day range of each segment's
// time column — skip segments outside the range), or streamed row groups
// and blocks. It is the seam between where rows come from and the
// aggregation: the kernels, the partial aggregates and their merging are
// the same for every producer, and a federated combine can feed them rows
// from another data system the same way. Group g of the table (a row
// group, a block, and the segments they became in the cache) goes to
// worker g mod Config.Parallelism, and partial aggregates merge in worker
// order, so an answer does not depend on scheduling, nor on whether its
// rows were streamed or cached: the same bits either way.
//
// Columns are read through typed views (int64, float64, date32, boolean,
// decimal coefficients, and text dictionary-encoded to int32 indexes). Each batch narrows a
// selection vector: range and bucket (a table from day to bucket),
// base-table filters, the metrics' required filters (a bit mask of the
// metrics a row counts for), joins (hash or dense-array lookups of the
// joined table's key, built once per column and cached), joined-table
// filters. Group keys pack the bucket and each dimension's code into a
// uint64, looked up in a dense table or a hash map; a cached column's
// codes are computed once and cached, a streamed dimension's are numbered
// by each worker as values arrive (the key space grows, and groups are
// re-keyed, as they do). count_distinct keeps a bitset per group while
// the bitsets are small enough and a hash set otherwise. A question with
// no dimension and no join whose metrics share their required filters and
// are counts or integer sums skips the selection vector for a batch wholly
// in the range: its filters are tested over the rows into flags, and
// counts and sums are added per bucket (internal/kernel/direct.go).
//
// # Packages
//
// The engine is twenty-two packages that import one way, lowest first
// (tools rule engine-layers lists them and fails on an import upwards,
// tests included; docs/architecture.md §4 draws them). Among them:
//
//   - internal/files: a table's files in the fs.FS (name to format and
//     codec, parts, identity, link confinement);
//   - internal/column: a loaded column, its builders, segments, and the
//     structures derived from it (column.Derived, held beside the column);
//   - internal/text: CSV and NDJSON text cut into records and fields;
//   - internal/format: reading files into columns (the loader; Parquet
//     pages, dictionaries and validity; CSV and NDJSON records);
//   - internal/cache: the cached columns, keyed by their table's file
//     identity, and the accounting of every byte the engine holds against
//     the working set (eviction, questions asked again when memory frees,
//     the background fill that caches a streamed table's columns);
//   - internal/distinct: exact distinct counts per group, in partitioned
//     sets that spill;
//   - internal/match: filters compiled against one column (a predicate
//     per caller or required filter, its outcomes per dictionary entry);
//   - internal/kernel: the vectorised kernels over batches of a bound
//     kernel.Query (selections, joins, group keys, terms, the scan);
//   - this package: the Engine and Combiner; binding a plan against the
//     cache (which owns every cached column and its column.Derived),
//     streaming producers, execution, lookup legs, cost metering, what a
//     background fill will hold (its estimate) and the combine of
//     federated legs.
package engine
