package bigquery

import (
	"context"

	bq "cloud.google.com/go/bigquery"
	"cloud.google.com/go/civil"
	"google.golang.org/api/iterator"

	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
	"sutura.dev/semantic"
)

// Statement is the statement a leg of plan sends under ctx, with its
// traceparent comment and its parameters' values, for an explanation
// (docs/contract.md §16).
func (db *DB) Statement(ctx context.Context, plan *domain.Plan) (domain.Statement, error) {
	return sqlsource.ExplainStatement(ctx, "bigquery", db.cfg.Source, plan, semantic.BigQuery)
}

// DataThrough is the newest day column of model holds, read with one
// MAX() job over the column as the service account, under the source's
// maximum_bytes_billed and ctx (docs/contract.md §16): the explanation's
// data_through, asked at start and at each catalogue refresh, never per
// question. BigQuery bills the column's bytes for it (a partitioned
// table's whole column; no partition is pruned), and a table over the
// limit tells nothing. ok is false for a model this source does not
// serve or a column with no value.
func (db *DB) DataThrough(ctx context.Context, model, column string) (domain.Date, bool, error) {
	m := sqlsource.ServedModel(db.cfg.Models, model)
	if m == nil {
		return 0, false, nil
	}
	t, err := db.cfg.tableOf(m)
	if err != nil {
		return 0, false, err
	}
	// Identifiers come from the catalogue, quoted; no value is written.
	sql := "SELECT CAST(MAX(" + quoteIdent(column) + ") AS DATE) AS through FROM " +
		quoteIdent(t.project) + "." + quoteIdent(t.dataset) + "." + quoteIdent(t.name) + sqlsource.TraceComment(ctx)
	var (
		last civil.Date
		seen bool
	)
	_, err = db.run(ctx, job{sql: sql}, 1, false, func(it *bq.RowIterator) error {
		var row []bq.Value
		switch err := it.Next(&row); {
		case err == iterator.Done:
			return nil
		case err != nil:
			return err
		}
		if len(row) == 1 {
			last, seen = row[0].(civil.Date)
		}
		return nil
	})
	if err != nil || !seen {
		return 0, false, err
	}
	return domain.DateOf(last.Year, last.Month, last.Day), true, nil
}
