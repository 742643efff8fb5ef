package postgres

import (
	"context"
	"encoding/json"
	"strings"

	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
	"sutura.dev/semantic"
)

// Estimate asks the planner what plan would scan, without running it
// (docs/contract.md §15): EXPLAIN (FORMAT JSON) of the statement Execute
// would send, summing rows × width over the plan's scan nodes. It is one
// round trip on a pooled connection (the statement is prepared once per
// shape and cached), outside any transaction: EXPLAIN without ANALYZE
// executes nothing. It plans as the login role, also for an
// impersonating source: a role without grants on the tables fails, and
// the pipeline takes a failed estimate as unknown (the scan ceiling then
// does not apply to the leg). known is false when the planner's answer
// cannot be read. The error is ctx's or a classified failure of the
// database.
func (db *DB) Estimate(ctx context.Context, plan *domain.Plan) (bytes int64, known bool, err error) {
	query, args, err := sqlsource.Render("postgres", db.cfg.Source, plan, semantic.Postgres)
	if err != nil {
		return 0, false, err
	}
	ctx, cancel := sqlsource.Budget(ctx, db.cfg.DefaultTimeout)
	defer cancel()
	var out []byte
	if err := db.pool.QueryRow(ctx, "EXPLAIN (FORMAT JSON) "+query, args...).Scan(&out); err != nil {
		return 0, false, classify(ctx, db.cfg.Source, stepStatement, err)
	}
	bytes, known = explainBytes(out)
	return bytes, known, nil
}

// explainNode is the part of a node of EXPLAIN (FORMAT JSON) an estimate
// reads.
type explainNode struct {
	NodeType string        `json:"Node Type"`
	Rows     float64       `json:"Plan Rows"`
	Width    float64       `json:"Plan Width"`
	Plans    []explainNode `json:"Plans"`
}

// explainBytes sums rows × width over the scan nodes of an EXPLAIN (FORMAT
// JSON) document; known is false when it holds no plan.
func explainBytes(doc []byte) (int64, bool) {
	var top []struct {
		Plan *explainNode `json:"Plan"`
	}
	if err := json.Unmarshal(doc, &top); err != nil || len(top) == 0 || top[0].Plan == nil {
		return 0, false
	}
	var sum float64
	var walk func(n *explainNode)
	walk = func(n *explainNode) {
		if strings.HasSuffix(n.NodeType, " Scan") && n.NodeType != "Bitmap Index Scan" {
			sum += n.Rows * n.Width
		}
		for i := range n.Plans {
			walk(&n.Plans[i])
		}
	}
	walk(top[0].Plan)
	if sum > 1<<62 {
		sum = 1 << 62
	}
	return int64(sum), true
}
