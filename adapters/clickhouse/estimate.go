package clickhouse

import (
	"context"
	"sync"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
)

// ExplainEstimate reports whether the server has EXPLAIN ESTIMATE, which
// estimates the rows a statement reads after partition and primary-key
// pruning: ClickHouse 21.9 and later.
func (s *Server) ExplainEstimate() bool { return s.atLeast(21, 9) }

// Estimate asks the server what plan would read, without running it
// (docs/contract.md §15): EXPLAIN ESTIMATE of the statement Execute would
// send gives the rows each MergeTree table would read after pruning, and
// each row counts for its table's compressed bytes per row
// (system.tables total_bytes / total_rows, read once per table and kept
// for five minutes, so an estimate is one round trip). The statement is
// estimated as the service user, also for an impersonating source. known
// is false on a server without EXPLAIN ESTIMATE (before 21.9) and for a
// table the estimate does not list (not a MergeTree table).
func (db *DB) Estimate(ctx context.Context, plan *domain.Plan) (bytes int64, known bool, err error) {
	if err := sqlsource.Leg("clickhouse", db.cfg.Source, plan); err != nil {
		return 0, false, err
	}
	ctx, cancel := sqlsource.Budget(ctx, db.cfg.DefaultTimeout)
	defer cancel()
	srv, err := db.Server(ctx)
	if err != nil {
		return 0, false, err
	}
	if !srv.ExplainEstimate() {
		return 0, false, nil
	}
	st, err := render(plan, srv, "")
	if err != nil {
		return 0, false, err
	}
	type read struct {
		database, table string
		rows            uint64
	}
	var reads []read
	st.sql = "EXPLAIN ESTIMATE " + st.sql
	if _, err := db.run(ctx, st, func(rows driver.Rows) error {
		for rows.Next() {
			var r read
			var parts, marks uint64
			if err := rows.Scan(&r.database, &r.table, &parts, &r.rows, &marks); err != nil {
				return err
			}
			reads = append(reads, r)
		}
		return rows.Err()
	}); err != nil {
		return 0, false, err
	}
	if len(reads) == 0 {
		return 0, false, nil
	}
	var sum float64
	for _, r := range reads {
		w, err := db.rowWidth(ctx, r.database, r.table)
		if err != nil {
			return 0, false, err
		}
		sum += float64(r.rows) * w
	}
	return int64(min(sum, 1<<62)), true, nil
}

// widths keeps tables' bytes per row, per source.
var widths sync.Map // widthKey → width

type widthKey struct {
	db              *DB
	database, table string
}

type width struct {
	perRow float64
	at     time.Time
}

// widthAge is how long a table's bytes per row is kept.
const widthAge = 5 * time.Minute

// rowWidth is the compressed bytes per row of database.table.
func (db *DB) rowWidth(ctx context.Context, database, table string) (float64, error) {
	key := widthKey{db, database, table}
	if v, ok := widths.Load(key); ok && time.Since(v.(width).at) < widthAge {
		return v.(width).perRow, nil
	}
	var perRow float64
	st := statement{sql: "SELECT toFloat64(ifNull(total_bytes, 0)) / greatest(toFloat64(ifNull(total_rows, 0)), 1) FROM system.tables WHERE database = ? AND name = ?",
		args: []any{database, table}}
	if _, err := db.run(ctx, st, func(rows driver.Rows) error {
		if rows.Next() {
			return rows.Scan(&perRow)
		}
		return rows.Err()
	}); err != nil {
		return 0, err
	}
	widths.Store(key, width{perRow: perRow, at: time.Now()})
	return perRow, nil
}
