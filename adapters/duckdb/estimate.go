//go:build cgo

package duckdb

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
	"sutura.dev/semantic"
)

// valueBytes is what one value of a scanned column counts for in an
// estimate: DuckDB's plan gives cardinalities, not widths.
const valueBytes = 8

// Estimate asks DuckDB's planner what plan would scan, without running it
// (docs/contract.md §15): EXPLAIN (FORMAT JSON) of the statement Execute
// would send, summing over the plan's scan nodes their estimated
// cardinality × projected columns × 8 bytes (DuckDB estimates rows after
// the pushed-down filters, not widths). One statement on a pooled
// connection, in process, the first time a statement is estimated (see
// estimates). known is false when the plan cannot be read.
func (db *DB) Estimate(ctx context.Context, plan *domain.Plan) (bytes int64, known bool, err error) {
	query, args, err := sqlsource.Render("duckdb", db.cfg.Source, plan, semantic.DuckDB)
	if err != nil {
		return 0, false, err
	}
	key := estimateKey{db: db, statement: query + "\x00" + fmt.Sprint(args...)}
	if v, ok := estimates.Load(key); ok {
		e := v.(estimate)
		return e.bytes, e.known, nil
	}
	var doc string
	err = db.withConn(ctx, func(ctx context.Context, c *sql.Conn) error {
		var k string
		return c.QueryRowContext(ctx, "EXPLAIN (FORMAT JSON) "+query, args...).Scan(&k, &doc)
	})
	if err != nil {
		return 0, false, err
	}
	bytes, known = explainBytes([]byte(doc))
	if estimateCount.Add(1) > maxEstimates {
		estimates.Clear()
		estimateCount.Store(0)
	}
	estimates.Store(key, estimate{bytes, known})
	return bytes, known, nil
}

// The database file is opened read-only, so a statement's plan, and its
// estimate, do not change while the source is open: estimates are kept by
// statement and arguments (at most maxEstimates, then forgotten at once),
// and planning is paid once per question shape.
var (
	estimates     sync.Map // estimateKey → estimate
	estimateCount atomic.Int64
)

const maxEstimates = 4096

type estimateKey struct {
	db        *DB
	statement string
}

type estimate struct {
	bytes int64
	known bool
}

// explainNode is the part of a node of DuckDB's JSON plan an estimate
// reads; extra_info's values are strings or lists of strings.
type explainNode struct {
	Name      string                     `json:"name"`
	Children  []explainNode              `json:"children"`
	ExtraInfo map[string]json.RawMessage `json:"extra_info"`
}

// explainBytes sums cardinality × projections × valueBytes over the scan
// nodes of a plan; known is false when it holds no node.
func explainBytes(doc []byte) (int64, bool) {
	var top []explainNode
	if err := json.Unmarshal(doc, &top); err != nil || len(top) == 0 {
		return 0, false
	}
	var sum float64
	var walk func(n *explainNode)
	walk = func(n *explainNode) {
		if strings.Contains(n.Name, "SCAN") {
			rows := number(n.ExtraInfo["Estimated Cardinality"])
			cols := float64(max(count(n.ExtraInfo["Projections"]), 1))
			sum += rows * cols * valueBytes
		}
		for i := range n.Children {
			walk(&n.Children[i])
		}
	}
	for i := range top {
		walk(&top[i])
	}
	return int64(min(sum, 1<<62)), true
}

// number reads a count written as a string ("~2400") or a number.
func number(raw json.RawMessage) float64 {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		var f float64
		_ = json.Unmarshal(raw, &f)
		return f
	}
	f, _ := strconv.ParseFloat(strings.TrimLeft(s, "~"), 64)
	return f
}

// count is the number of items of a list, or 1 for a non-empty string.
func count(raw json.RawMessage) int {
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		return len(list)
	}
	var s string
	if json.Unmarshal(raw, &s) == nil && s != "" {
		return len(strings.Split(s, "\n"))
	}
	return 0
}
