package bigquery

import (
	"context"

	bq "cloud.google.com/go/bigquery"
	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
)

// ErrEmptyStatement is RunSQL's error for a statement with no text.
var ErrEmptyStatement = sqlsource.ErrEmptyStatement

// RunSQL runs one statement of run_sql (docs/contract.md §6) and returns
// at most rowCap rows (domain.MaxRowCap when rowCap is not positive or
// larger), named after the result's fields, with no role and no
// provenance, as the service account.
//
// The statement is dry-run first: BigQuery parses and plans it, checks
// its permissions and says what kind of statement it is, without running
// it or billing anything. Only a statement BigQuery calls SELECT is then
// run, as one job like a question's (maximum_bytes_billed, the deadline as
// the job's timeout, cancelled when ctx ends); a script, DML, DDL or
// anything else is refused as source_refused and never run. More rows
// than rowCap, or more than domain.MaxResultBytes of rendered cells, is
// result_too_large. Any other failure of the statement is an *Error whose
// Message is BigQuery's, for the person who wrote the statement.
func (db *DB) RunSQL(ctx context.Context, statement string, rowCap int) (*domain.RowSet, error) {
	rowCap, err := sqlsource.Statement(statement, rowCap)
	if err != nil {
		return nil, err
	}
	ctx, cancel := sqlsource.Budget(ctx, db.cfg.DefaultTimeout)
	defer cancel()
	// The text dry-run and run ends with the call's traceparent comment
	// (docs/contract.md §16).
	statement = sqlsource.Traced(ctx, statement)
	qs, err := db.dryRun(ctx, statement, nil)
	if err != nil {
		return nil, err
	}
	if qs.StatementType != "SELECT" {
		kind := qs.StatementType
		if kind == "" {
			kind = "statement of no kind it names"
		}
		return nil, sqlsource.Refusal(domain.SourceRefused, detailReadOnly, kind)
	}
	var rs *domain.RowSet
	_, err = db.run(ctx, job{sql: statement}, rowCap, false, func(it *bq.RowIterator) error {
		got, err := read(it, nil, rowCap, domain.MaxResultBytes, sqlsource.DetailStatementRows)
		rs = got
		return err
	})
	if err != nil {
		return nil, err
	}
	return rs, nil
}
