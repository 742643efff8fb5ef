// Package legrows reads the rows of a federated plan's legs as the engine's
// combine takes them (docs/architecture.md §4): Check holds them to the
// plan's shape, Columns turns a leg's rows into typed columns, and Metric
// is the metric plan that re-aggregates a metric's partials.
package legrows

import (
	"errors"
	"fmt"
	"strconv"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/gate"
	"sutura.dev/exec-arrow/internal/kernel"
)

// Metric is the metric plan that re-aggregates cm's partials, the
// columns of the base leg's rows.
func Metric(cm domain.CombineMetric, base []*column.Derived) (*kernel.MetricPlan, error) {
	mp := &kernel.MetricPlan{Name: cm.Name, Ratio: cm.Measure.Ratio}
	add := func(op kernel.TermOp, i int) (int, error) {
		col := base[i].Column()
		tp := &kernel.TermPlan{Op: op, Slot: i, Col: col, Float: col.Type == domain.TypeFloat, Dec: col.Type == domain.TypeDecimal}
		switch {
		case op == kernel.OpSum && !col.Numeric():
			return 0, fmt.Errorf("metric %s: a partial to sum is %s, not a number", cm.Name, col.Type)
		case col.Type == domain.TypeText:
			tp.Rank = base[i].Ranks()
		}
		mp.Terms = append(mp.Terms, tp)
		return len(mp.Terms) - 1, nil
	}
	for i, t := range cm.Measure.Terms() {
		parts := cm.Partials[i]
		var (
			ct  kernel.CombineTerm
			err error
		)
		switch {
		case t.CountIf != "", t.Aggregate == domain.Sum, t.Aggregate == domain.Count:
			ct.A, err = add(kernel.OpSum, parts[0])
		case t.Aggregate == domain.Avg:
			ct.Avg = true
			if ct.A, err = add(kernel.OpSum, parts[0]); err == nil {
				ct.B, err = add(kernel.OpSum, parts[1])
			}
		case t.Aggregate == domain.Min:
			ct.A, err = add(kernel.OpMin, parts[0])
		case t.Aggregate == domain.Max:
			ct.A, err = add(kernel.OpMax, parts[0])
		default:
			return nil, &domain.RefusalError{Reason: domain.Refuse(domain.MeasureDoesNotFederate,
				"metric %s counts distinct values, which cannot be combined across data systems", cm.Name)}
		}
		if err != nil {
			return nil, err
		}
		mp.Combine = append(mp.Combine, ct)
	}
	return mp, nil
}

// Check checks that legs fit the plan: one row set per leg, each
// with the leg's columns, and a combine whose every reference names one of
// them, so that no index below can fall outside.
func Check(plan *domain.Plan, legs []*domain.RowSet) error {
	comb := plan.Combine
	if comb == nil || len(plan.Legs) < 2 {
		return errors.New("the plan is not federated")
	}
	if len(legs) != len(plan.Legs) {
		return fmt.Errorf("%d row sets for %d legs", len(legs), len(plan.Legs))
	}
	width := make([]int, len(legs))
	for i, rs := range legs {
		leg := &plan.Legs[i]
		if (i == 0) != (leg.Kind == domain.LegAggregate) {
			return fmt.Errorf("leg %d is of the wrong kind", i)
		}
		width[i] = len(leg.OutputColumns())
		if rs == nil || len(rs.Columns) != width[i] {
			return fmt.Errorf("leg %d: the rows do not have the leg's %d columns", i, width[i])
		}
		for _, row := range rs.Rows {
			if len(row) != width[i] {
				return fmt.Errorf("leg %d: a row does not have the leg's %d columns", i, width[i])
			}
		}
	}
	valid := func(lc domain.LegColumn, before int) bool {
		return lc.Leg >= 0 && lc.Leg < before && lc.Column >= 0 && lc.Column < width[lc.Leg]
	}
	if len(comb.Links) != len(legs)-1 {
		return fmt.Errorf("%d links for %d lookup legs", len(comb.Links), len(legs)-1)
	}
	for i, l := range comb.Links {
		if l.Leg != i+1 || !valid(l.From, l.Leg) {
			return fmt.Errorf("link %d does not join lookup leg %d from an earlier leg", i, i+1)
		}
	}
	var dims, metrics int
	for _, col := range plan.Columns {
		switch col.Role {
		case domain.RoleDimension:
			dims++
		case domain.RoleMetric:
			metrics++
		}
	}
	if len(comb.Dimensions) != dims || dims > domain.MaxDimensions || len(comb.Metrics) != metrics {
		return errors.New("the combine does not produce the plan's columns")
	}
	for _, lc := range comb.Dimensions {
		if !valid(lc, len(legs)) {
			return errors.New("a dimension names no leg column")
		}
	}
	for _, f := range comb.Filters {
		if !valid(f.Column, len(legs)) {
			return fmt.Errorf("the filter on %s names no leg column", f.Dimension)
		}
	}
	firstPartial := len(plan.Legs[0].Dimensions) + 1
	for _, m := range comb.Metrics {
		terms := m.Measure.Terms()
		if len(terms) == 0 || len(m.Partials) != len(terms) {
			return fmt.Errorf("metric %s: one list of partials per term", m.Name)
		}
		for i, t := range terms {
			want := 1
			if t.Aggregate == domain.Avg {
				want = 2
			}
			if len(m.Partials[i]) != want {
				return fmt.Errorf("metric %s: term %d has %d partials, not %d", m.Name, i, len(m.Partials[i]), want)
			}
			for _, c := range m.Partials[i] {
				if c < firstPartial || c >= width[0] {
					return fmt.Errorf("metric %s: a partial names no metric column of the base leg", m.Name)
				}
			}
		}
	}
	return nil
}

// Columns turns a leg's rows into typed columns named by position, the
// type of each told by its cells (column.FromCells), with the type the
// plan declares for it as the hint.
func Columns(leg *domain.Leg, rs *domain.RowSet, mem *gate.Reservation) ([]*column.Column, error) {
	declared := map[string]domain.ColumnType{}
	tables := append([]domain.Table{leg.Base}, make([]domain.Table, 0, len(leg.Joins))...)
	for _, j := range leg.Joins {
		tables = append(tables, j.To)
	}
	for _, t := range tables {
		for _, c := range t.Columns {
			declared[t.Alias+"."+c.Name] = c.Type
		}
	}
	var hints []domain.ColumnType
	for _, d := range leg.Dimensions {
		hints = append(hints, declared[d.Column.Alias+"."+d.Column.Column])
	}
	if leg.Kind == domain.LegAggregate {
		hints = append(hints, domain.TypeDate)
		for _, m := range leg.Metrics {
			h := domain.TypeInteger
			if t := m.Measure.Simple; t != nil && (t.Aggregate == domain.Min || t.Aggregate == domain.Max) {
				h = declared[leg.Base.Alias+"."+t.Column]
			}
			hints = append(hints, h)
		}
	}
	cols := make([]*column.Column, len(hints))
	for i, h := range hints {
		col, err := column.FromCells(strconv.Itoa(i), rs.Rows, i, h)
		if err != nil {
			return nil, err
		}
		if err := mem.Grow(col.Bytes); err != nil {
			return nil, err
		}
		cols[i] = col
	}
	return cols, nil
}
