// Package bigquery is the BigQuery data system of sutura: it executes plans
// with the SQL package semantic writes for the bigquery dialect, through
// Google's client library (cloud.google.com/go/bigquery) over the REST
// API, and returns their rows as canonical cells, so an answer from
// BigQuery is byte-identical to the embedded engine's.
//
// # One question, one job
//
// Every question is one query job (jobs.insert) in Config.Location, with
// the statement's values as typed named parameters (@p1 DATE, @p2
// STRING: never written into the SQL), Config.MaximumBytesBilled on every
// job, and the rest of the question's deadline as the job's timeout
// (jobTimeoutMs, a context without a deadline gets Config.DefaultTimeout),
// so BigQuery stops the job itself when the question's time is up. Bare
// table names resolve in Config.Dataset (the job's default dataset).
//
// Every job has an id of sutura's making (sutura_<alias>_<random hex>), so
// an operator can tell sutura's jobs apart in the project's job history.
// When the question's context ends before its rows are read, the job is
// cancelled by that id (jobs.cancel, waiting at most three seconds for
// the answer), also when the context ended during jobs.insert itself:
// BigQuery gives the slots back when the job is cancelled, not when it
// would have ended.
//
// The rows are read page by page (jobs.getQueryResults with pageToken),
// each page at most the row cap plus one rows, and the statement carries
// LIMIT cap+1: never more than cap+1 rows are fetched. More rows than the
// row cap, or more than the byte bound of rendered cells, are refused as
// result_too_large while reading, never truncated.
//
// # Postures
//
// Every job runs as the configured service account (credentials_file, or
// Application Default Credentials): BigQuery has no per-statement
// identity a shared client can assume, so the posture is
// shared-service-user only, and New refuses impersonation-at-source,
// naming the posture key (docs/operations.md, "BigQuery and Oracle
// sources").
//
// # Outcomes
//
// Execute returns the rows, a *domain.RefusalError, ctx.Err() when ctx was
// cancelled, or an error. BigQuery's error reasons map as follows:
// accessDenied (a 403 without a quota reason) and quotaExceeded or
// rateLimitExceeded are source_refused; bytesBilledLimitExceeded (the job
// would bill more than maximum_bytes_billed) is scan_ceiling_exceeded
// (docs/contract.md §15); responseTooLarge is result_too_large; resourcesExceeded is resources_exhausted; a job
// timeout (timeout) or a passed deadline is deadline_exceeded; a division
// by zero in a ratio declared zero_denominator: fails wraps
// domain.ErrZeroDenominator; invalidQuery, invalid and notFound are an
// *Error of kind domain.ErrRejected (statement_failed), whose text never
// holds BigQuery's message; a sign-in BigQuery refused, a 5xx, or a
// network failure is an *Error of kind domain.ErrUnavailable.
//
// # Cells
//
// INT64 becomes an integer cell; NUMERIC and BIGNUMERIC become an integer
// cell when integral and within 64 bits and otherwise the real nearest to
// their exact value (sqlsource.DecimalCell); FLOAT64 a real; BOOL a
// boolean; STRING text; DATE a date cell; TIMESTAMP and DATETIME RFC 3339
// text in UTC, as the engine renders them; NULL null.
//
// # Cost
//
// ExecuteWithCost reports the job's totalBytesProcessed (what on-demand
// pricing bills), read from the job's status once its rows are in;
// EstimateBytes is a dry run's figure for the same statement.
//
// # Start-up validation and run_sql
//
// Validate reads every model's table schema (tables.get: free, and what
// INFORMATION_SCHEMA.COLUMNS would say) and checks each declared column,
// then dry-runs a read of the declared columns, so BigQuery checks the
// service account may read them without billing a byte. RunSQL dry-runs
// the statement first and runs it only when BigQuery says it is one
// SELECT; see RunSQL.
package bigquery
