package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/answer"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/files"
	"sutura.dev/exec-arrow/internal/gate"
	"sutura.dev/exec-arrow/internal/kernel"
)

// prepared is the answer Prepare found for one plan, until Execute takes
// it: the plan as it was asked (its JSON), the identity of the files
// scanned, and the answer (or the error the plan ends in) with what the
// scan read.
type prepared struct {
	plan       []byte
	tf         string
	rs         *domain.RowSet
	err        error
	rows, read int64
	// cached and loaded are the tables it found cached and read
	// (kernel.Meter).
	cached, loaded int64
}

// Prepare readies the engine for plans a process is about to execute, all
// of them, before the first (the anchors at start, with a one-shot
// command's question; docs/operations.md, "Anchors and a question share a
// scan"). The plans that would each stream the same base table are
// answered together, in one scan of its files: a union (kernel.ScanAll)
// reads each column once, for the rows any of them may count, and
// aggregates each plan's rows as its own scan would. Execute of an equal
// plan then returns that answer, once, while the table's files are still
// those scanned; ExecuteWithCost reports the scan that answered them all.
//
// Prepare never fails a plan and answers no plan of its own accord: a
// plan it cannot answer so (another source, a lookup, a table the cache
// holds, a table no other plan reads, a scan that fails or does not fit)
// is executed as before. A later call replaces what an earlier one left
// untaken.
func (e *Engine) Prepare(ctx context.Context, plans []*domain.Plan) {
	e.preparedMu.Lock()
	e.prepared = nil
	e.preparedMu.Unlock()
	type entry struct {
		q   *query
		key []byte
	}
	// Only a plan that shares its table with another is bound here: one
	// alone is bound when it executes, once.
	table := func(p *domain.Plan) string { return strings.Join(p.Legs[0].Base.Path, "\x00") }
	var eligible []*domain.Plan
	shared := map[string]int{}
	for _, plan := range plans {
		if plan == nil || len(plan.Legs) != 1 || plan.Legs[0].Kind == domain.LegLookup ||
			plan.Legs[0].Source != e.cfg.Source || e.withdrawn(plan) != nil {
			continue
		}
		eligible = append(eligible, plan)
		shared[table(plan)]++
	}
	groups := map[string][]entry{}
	var order []string
	for _, plan := range eligible {
		if shared[table(plan)] < 2 {
			continue
		}
		key, err := json.Marshal(plan)
		if err != nil {
			continue
		}
		q, err := e.bind(ctx, plan, nil, false)
		if err != nil {
			continue
		}
		if !q.streamed {
			q.release()
			continue
		}
		g := q.tf.ID
		if _, ok := groups[g]; !ok {
			order = append(order, g)
		}
		groups[g] = append(groups[g], entry{q, key})
	}
	for _, g := range order {
		es := groups[g]
		qs := make([]*query, len(es))
		for i, en := range es {
			qs[i] = en.q
		}
		if len(es) > 1 {
			for i, p := range e.answerInParts(ctx, qs) {
				if p != nil {
					p.plan = es[i].key
					e.preparedMu.Lock()
					e.prepared = append(e.prepared, p)
					e.preparedMu.Unlock()
				}
			}
		}
		for _, q := range qs {
			q.release()
		}
	}
}

// takePrepared returns, once, the answer Prepare found for a plan equal to
// plan, when the files of its base table are still those it scanned.
func (e *Engine) takePrepared(plan *domain.Plan) (*prepared, bool) {
	e.preparedMu.Lock()
	n := len(e.prepared)
	e.preparedMu.Unlock()
	if n == 0 {
		return nil, false
	}
	key, err := json.Marshal(plan)
	if err != nil {
		return nil, false
	}
	var found *prepared
	e.preparedMu.Lock()
	for i, p := range e.prepared {
		if bytes.Equal(p.plan, key) {
			found = p
			e.prepared = append(e.prepared[:i], e.prepared[i+1:]...)
			break
		}
	}
	e.preparedMu.Unlock()
	if found == nil {
		return nil, false
	}
	t := plan.Legs[0].Base
	if tf, err := files.Locate(e.cfg.Files, t.Path[len(t.Path)-1]); err != nil || tf.ID != found.tf {
		return nil, false
	}
	return found, true
}

// answerInParts is answerTogether of qs, and, when their scan does not
// fit the working set, of each half of them in turn (logged): a few scans
// of the table rather than one a question. The answers are in qs's
// order; one a part could not give (a part of one question) is nil.
func (e *Engine) answerInParts(ctx context.Context, qs []*query) []*prepared {
	if len(qs) < 2 {
		return make([]*prepared, len(qs))
	}
	out, large := e.answerTogether(ctx, qs)
	if !large {
		return out
	}
	e.log().Warn("questions over one table are answered in parts, a scan of all of them not fitting the working set",
		"table", qs[0].tf.Name, "questions", len(qs))
	h := len(qs) / 2
	return append(e.answerInParts(ctx, qs[:h]), e.answerInParts(ctx, qs[h:])...)
}

// answerTogether answers the streamed queries qs, which read one base
// table (each by its own time column), in one scan of its files; nil when
// they cannot be (their columns of one name differ in type) or the scan
// failed. Either is logged (the table, how many questions, why): each
// question then reads the table on its own, its answer the same, its
// start slower. A scan refused for the working set alone (not for what
// another question holds) is not logged: large is set, and fewer of qs
// may fit (answerInParts).
func (e *Engine) answerTogether(ctx context.Context, qs []*query) (out []*prepared, large bool) {
	e.cache.Enter()
	defer e.cache.Leave()
	apart := func(why string, err error) {
		if ctx.Err() != nil {
			return
		}
		args := []any{"table", qs[0].tf.Name, "questions", len(qs), "why", why}
		if err != nil {
			args = append(args, "error", err.Error())
		}
		e.log().Warn("questions over one table are answered apart, each reading it", args...)
	}
	u := unionOf(qs)
	if u == nil {
		apart("they read a column of one name as different types", nil)
		return nil, false
	}
	mem := &gate.Reservation{Budget: e.cache}
	defer mem.Done()
	var m kernel.Meter
	src, err := e.producer(ctx, u, mem, &m)
	if tooLarge(err) {
		return nil, true
	}
	if err != nil {
		apart("the shared scan could not start", err)
		return nil, false
	}
	for _, q := range qs {
		q.Rows = u.Rows
	}
	parts, err := kernel.ScanAll(ctx, &u.Query, src, mem, &m)
	if tooLarge(err) {
		return nil, true
	}
	if err != nil {
		apart("the shared scan failed", err)
		return nil, false
	}
	e.recordDays(u, src)
	out = make([]*prepared, len(qs))
	for i, q := range qs {
		var qm kernel.Meter
		qm.Bytes.Store(m.Bytes.Load())
		qm.Visited.Store(m.Visited.Load())
		finishMeter(&qm, q)
		rs, err := answer.Rows(ctx, q.plan, &q.Query, parts[i], mem)
		parts[i].Close()
		if ctx.Err() != nil {
			for _, p := range parts[i+1:] {
				p.Close()
			}
			return nil, false
		}
		if err != nil {
			err = e.fail(ctx, err)
		}
		out[i] = &prepared{tf: q.tf.ID, rs: rs, err: err, rows: qm.Rows.Load(), read: qm.Bytes.Load(),
			cached: qm.Cached.Load(), loaded: qm.Loaded.Load()}
	}
	for _, q := range qs {
		e.scheduleFill(q, mem.Peak)
	}
	return out, false
}

// tooLarge reports whether err refuses a scan for the working set alone:
// not for memory another question holds (gate.Busy), which it may have
// once that one ends.
func tooLarge(err error) bool {
	var busy gate.Busy
	var re *domain.RefusalError
	return err != nil && !errors.As(err, &busy) && errors.As(err, &re) && re.Reason.Code() == domain.ResourcesExhausted
}

// unionOf is the union of the streamed queries qs (kernel.Member): one
// slot per column name any of them reads, read for its values when one
// of them reads them; its time slot is the first's, and each member keeps
// its own (kernel.Query.TimeSlots). Nil when two of them read a column of
// one name as different types.
func unionOf(qs []*query) *query {
	u := &query{tf: qs[0].tf, streamed: true}
	u.Parallel, u.Aliases = qs[0].Parallel, 1
	slotOf := map[string]int{}
	for _, q := range qs {
		mb := kernel.Member{Q: &q.Query, Slots: make([]int, len(q.Base))}
		for s, c := range q.Base {
			j, ok := slotOf[c.Name]
			if !ok {
				j = len(u.Base)
				slotOf[c.Name] = j
				u.Base = append(u.Base, &column.Column{Name: c.Name, Type: c.Type, Spec: c.Spec, ValidOnly: c.ValidOnly, ID: column.ColumnIDs.Add(1)})
				u.inferred = append(u.inferred, q.inferred[s])
			}
			uc := u.Base[j]
			if uc.Type != c.Type || uc.Spec != c.Spec || u.inferred[j] != q.inferred[s] {
				return nil
			}
			uc.ValidOnly = uc.ValidOnly && c.ValidOnly
			mb.Slots[s] = j
		}
		u.Members = append(u.Members, mb)
	}
	u.TimeSlot = u.Members[0].Slots[qs[0].TimeSlot]
	for i, q := range qs {
		if u.Base[u.Members[i].Slots[q.TimeSlot]].ValidOnly {
			return nil
		}
	}
	return u
}
