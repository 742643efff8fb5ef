package engine

import (
	"context"
	"fmt"
	"slices"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/answer"
	"sutura.dev/exec-arrow/internal/cache"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/format"
	"sutura.dev/exec-arrow/internal/gate"
	"sutura.dev/exec-arrow/internal/join"
	"sutura.dev/exec-arrow/internal/kernel"
	"sutura.dev/exec-arrow/internal/match"
)

// lookup runs a lookup leg of a federated plan (domain.LegLookup) over the
// source's files: the rows of its base table whose key (the first column)
// is not null, with the columns its joins reach, filtered by its filters;
// no grouping, no time column. Its tables are read whole into the cache,
// as joined tables always are, and walked with the same join steps and
// predicates a question uses. More rows than the plan's row cap is
// result_too_large.
func (e *Engine) lookup(ctx context.Context, plan *domain.Plan, m *kernel.Meter) (*domain.RowSet, error) {
	leg := &plan.Legs[0]
	if leg.Source != e.cfg.Source {
		return nil, fmt.Errorf("the plan's leg is for source %s, not %s", leg.Source, e.cfg.Source)
	}
	if len(leg.Dimensions) == 0 || len(leg.Metrics) != 0 {
		return nil, fmt.Errorf("a lookup leg returns columns and no metric")
	}
	if len(plan.Columns) != len(leg.Dimensions) {
		return nil, fmt.Errorf("the plan lists %d columns for a lookup leg of %d", len(plan.Columns), len(leg.Dimensions))
	}
	rowCap, _ := plan.Bounds()
	tables, alias, err := legTables(leg)
	if err != nil {
		return nil, err
	}
	wants := make([][]format.Want, len(tables))
	need := func(ref domain.ColumnRef) (int, error) {
		a, ok := alias[ref.Alias]
		if !ok {
			return 0, fmt.Errorf("column %s names alias %s, which the leg does not define", ref.Column, ref.Alias)
		}
		w := e.wantOf(tables[a], ref.Column)
		if !slices.Contains(wants[a], w) {
			wants[a] = append(wants[a], w)
		}
		return a, nil
	}
	for _, j := range leg.Joins {
		if _, err := need(domain.ColumnRef{Alias: j.FromAlias, Column: j.FromColumn}); err != nil {
			return nil, err
		}
		if _, err := need(domain.ColumnRef{Alias: j.To.Alias, Column: j.ToColumn}); err != nil {
			return nil, err
		}
	}
	for _, d := range leg.Dimensions {
		if _, err := need(d.Column); err != nil {
			return nil, err
		}
	}
	for _, f := range leg.Filters {
		if _, err := need(f.Column); err != nil {
			return nil, err
		}
	}
	views := make([]*cache.View, len(tables))
	defer func() {
		for _, v := range views {
			if v != nil {
				v.Release()
			}
		}
	}()
	for i, t := range tables {
		if len(t.Path) == 0 {
			return nil, fmt.Errorf("model %s has no table path", t.Model)
		}
		v, err := e.acquire(ctx, t, wants[i], m)
		if err != nil {
			return nil, err
		}
		views[i] = v
	}
	if m != nil {
		for _, v := range views {
			m.Rows.Add(int64(v.Rows))
			tally(m, v.FileBytes)
			if v.FileBytes == 0 {
				for _, c := range v.Cols {
					m.Bytes.Add(c.Bytes)
				}
			}
		}
	}
	col := func(ref domain.ColumnRef) (int, *column.Column) {
		a := alias[ref.Alias]
		return a, views[a].Cols[ref.Column]
	}
	var steps []*join.Step
	for i, j := range leg.Joins {
		from, fc := col(domain.ColumnRef{Alias: j.FromAlias, Column: j.FromColumn})
		to, tc := col(domain.ColumnRef{Alias: j.To.Alias, Column: j.ToColumn})
		s, err := join.NewStep(ctx, from, i+1, views[from].Held(fc), views[to].Held(tc))
		if err != nil {
			return nil, fmt.Errorf("join %s: model %s: %w", j.Relationship, j.To.Model, err)
		}
		steps = append(steps, s)
	}
	keyAlias, keyCol := col(leg.Dimensions[0].Column)
	preds := []*match.Predicate{{Alias: keyAlias, Col: keyCol, AnyValue: true}}
	for _, f := range leg.Filters {
		a, c := col(f.Column)
		p, err := match.Caller(a, views[a].Held(c), f)
		if err != nil {
			return nil, err
		}
		preds = append(preds, p)
	}
	mem := &gate.Reservation{Budget: e.cache}
	defer mem.Done()
	n := views[0].Rows
	out := &domain.RowSet{Columns: append([]domain.Column(nil), plan.Columns...), Rows: [][]domain.Cell{}}
	mapped := make([][]int32, len(tables))
	var (
		pass  []bool
		maps  = make([]column.DictMap, len(steps))
		fmaps = make([]column.DictMap, len(preds))
	)
	for lo := 0; lo < n; lo += column.ChunkRows {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		hi := min(lo+column.ChunkRows, n)
		sel := make([]int32, hi-lo)
		for i := range sel {
			sel[i] = int32(lo + i)
		}
		mapped[0] = sel
		for i, s := range steps {
			rows := make([]int32, len(sel))
			s.Apply(s.FromCol, mapped[s.From], rows, &maps[i], nil)
			mapped[s.To] = rows
		}
		pass = append(pass[:0], make([]bool, len(sel))...)
		keep := make([]bool, len(sel))
		for i := range keep {
			keep[i] = true
		}
		for i, p := range preds {
			p.Eval(p.Col, mapped[p.Alias], pass, &fmaps[i])
			for k, ok := range pass {
				keep[k] = keep[k] && ok
			}
		}
		before := len(out.Rows)
		for k, ok := range keep {
			if !ok {
				continue
			}
			if len(out.Rows) == rowCap {
				return nil, answer.TooLarge("the lookup leg has more than %d rows", rowCap)
			}
			row := make([]domain.Cell, len(leg.Dimensions))
			for d, dim := range leg.Dimensions {
				a, c := col(dim.Column)
				row[d] = c.Cell(mapped[a][k])
			}
			out.Rows = append(out.Rows, row)
		}
		// The rows are working memory until the combine has them.
		if err := mem.Grow(int64(len(out.Rows)-before) * int64(24+48*len(leg.Dimensions))); err != nil {
			return nil, err
		}
	}
	return out, nil
}
