package engine

import (
	"context"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/kernel"
)

// ExecuteWithCost is Execute that also reports what this execution read
// (the realized cost, an optional ability of a data system):
//
//   - RowsScanned: the base table's rows in the batches the scan visited
//     (after pruning by the range: row-group statistics and zone maps),
//     plus every row of each joined table;
//   - BytesRead: per table, the bytes read from its files when this
//     execution streamed or loaded columns from disk, otherwise the bytes
//     of the cached columns it scanned (the base table's in proportion to
//     the rows visited, joined tables' whole).
//
// Both are counted for this execution alone, and reported also when it
// ends in a refusal, a failure or a cancellation: what was spent until it
// stopped.
func (e *Engine) ExecuteWithCost(ctx context.Context, plan *domain.Plan) (*domain.RowSet, domain.Cost, error) {
	var m kernel.Meter
	rs, err := e.execute(ctx, plan, &m)
	return rs, domain.Cost{RowsScanned: m.Rows.Load(), BytesRead: m.Bytes.Load(), Cache: cacheState(&m)}, err
}

// finishMeter adds to m what the bound query read once its scan is over: the base
// rows visited, every row of each joined table, and the bytes of the
// cached columns scanned (files read were counted as they were read); and
// tallies each table, a streamed base table as read from its files.
func finishMeter(m *kernel.Meter, q *query) {
	if m == nil {
		return
	}
	visited := m.Visited.Load()
	m.Rows.Add(visited)
	if q.streamed {
		m.Loaded.Add(1) // a streamed base table has no view: it was read from its files
	}
	for i, v := range q.views {
		if v == nil {
			continue
		}
		if i > 0 {
			m.Rows.Add(int64(v.Rows))
		}
		tally(m, v.FileBytes)
		if v.FileBytes > 0 {
			continue // counted as it was read
		}
		for _, c := range v.Cols {
			if i == 0 && v.Rows > 0 {
				m.Bytes.Add(c.Bytes * visited / int64(v.Rows))
			} else {
				m.Bytes.Add(c.Bytes)
			}
		}
	}
}
