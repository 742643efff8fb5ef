package kernel

import (
	"context"
	"sync"

	"golang.org/x/sync/errgroup"

	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/format"
	"sutura.dev/exec-arrow/internal/gate"
	"sutura.dev/exec-arrow/internal/groups"
	"sutura.dev/exec-arrow/internal/passrate"
)

// Partial is one worker's aggregation: its groups, the codebooks of the
// dimensions it numbers itself, and per metric the rows that entered each
// group and the term states.
type Partial struct {
	Groups *groups.Table
	Books  []*groups.Codebook // per dimension: nil when the codes are fixed
	maps   []column.DictMap   // per dimension: a batch dictionary's codes
	Rows   [][]int64          // per metric, per group
	Terms  [][]*termState     // per metric, per term
}

func newPartial(q *Query) *Partial {
	p := &Partial{Groups: groups.New(len(q.Buckets), q.Radix), Rows: make([][]int64, len(q.Metrics)),
		Terms: make([][]*termState, len(q.Metrics)), Books: make([]*groups.Codebook, len(q.Dims)), maps: make([]column.DictMap, len(q.Dims))}
	for d, dim := range q.Dims {
		if dim.Codes == nil {
			p.Books[d] = groups.NewCodebook(dim.Col.Type)
		}
	}
	for m, mp := range q.Metrics {
		p.Terms[m] = make([]*termState, len(mp.Terms))
		for t, tp := range mp.Terms {
			p.Terms[m][t] = newTermState(tp)
		}
	}
	return p
}

// grow sizes every state for the current number of groups.
func (p *Partial) grow(q *Query) {
	ng := p.Groups.Len()
	for m, mp := range q.Metrics {
		for len(p.Rows[m]) < ng {
			p.Rows[m] = append(p.Rows[m], 0)
		}
		for t, tp := range mp.Terms {
			p.Terms[m][t].grow(tp, ng)
		}
	}
}

// bytes estimates the memory p holds.
func (p *Partial) bytes(q *Query) int64 {
	ng := int64(p.Groups.Len())
	n := p.Groups.Bytes()
	for _, b := range p.Books {
		if b != nil {
			n += b.Bytes()
		}
	}
	for m := range q.Metrics {
		n += ng * 8
		for _, s := range p.Terms[m] {
			n += s.bytes()
		}
	}
	return n
}

// scratch is a worker's per-batch buffers, reused across batches.
type scratch struct {
	sel    []int32   // base rows, compacted as filters drop them
	bucket []int32   // per position
	mapped [][]int32 // per alias (1..): row of that table per position, -1 none
	mask   []uint64  // per position: the metrics the row counts for
	pass   []bool
	// The direct kernel's counts, sums and groups per bucket, and tests.
	bcount []int64
	bsum   []int64
	bgids  []int32
	tests  []directTest
	keys   []uint64
	gids   []int32
	mrows  []int32
	mgids  []int32
	dcodes [][]int32 // per dimension numbered by the worker: codes per position
	hist   []int32   // a metric's positions per group (four lanes each)
	combos []int32   // positions per group and metric mask
	// Sums per group and metric mask of the columns summed under masks
	// (comboSum), for this batch: per column's slot, and whether the
	// pass overflowed.
	sumSlots []int
	sums     [][]int64
	sumOK    []bool
	masked   bool           // mask holds the batch's metric masks
	order    passrate.Rates // what the range and the early filters passed

	// Per-batch dictionary caches of base-table text columns.
	filterMaps []column.DictMap // per base caller filter
	reqMaps    []column.DictMap // per required filter
	outcomes   []bool           // a streamed batch's filter outcome per dictionary entry (filterSpan)
	joinMaps   []column.DictMap // per join
}

// scratchPool keeps scratch buffers between queries: a small question
// would otherwise allocate (and the collector clear) buffers for a whole
// batch on every call.
var scratchPool sync.Pool

// newScratch returns scratch buffers for q, reused from earlier queries
// when they are large enough; release them with putScratch.
func newScratch(q *Query) *scratch {
	s := rowsFor([]*Query{q})
	s.fit(q)
	return s
}

// rowsFor returns a scratch from the pool whose per-row buffers (the
// selection and each row's bucket, joined rows, mask, key, group, codes)
// hold what a batch of each of qs needs. A batch fills them before it
// reads them, and nothing in them outlives the batch (lendRows).
func rowsFor(qs []*Query) *scratch {
	s, _ := scratchPool.Get().(*scratch)
	if s == nil {
		s = &scratch{}
	}
	for _, q := range qs {
		s.growRows(q)
	}
	return s
}

// growRows sizes s's per-row buffers for q's batches, reusing any that
// are large enough.
func (s *scratch) growRows(q *Query) {
	n := q.chunkLen()
	grow32 := func(b []int32) []int32 {
		if cap(b) < n {
			return make([]int32, n)
		}
		return b[:n]
	}
	s.sel, s.bucket = grow32(s.sel)[:0], grow32(s.bucket)[:0]
	s.gids, s.mrows, s.mgids = grow32(s.gids), grow32(s.mrows), grow32(s.mgids)
	if cap(s.mask) < n {
		s.mask, s.keys = make([]uint64, n), make([]uint64, n)
	}
	s.mask, s.keys = s.mask[:n], s.keys[:n]
	if cap(s.pass) < n {
		s.pass = make([]bool, n)
	}
	s.pass = s.pass[:n]
	if cap(s.mapped) < q.Aliases {
		s.mapped = append(s.mapped[:cap(s.mapped)], make([][]int32, q.Aliases-cap(s.mapped))...)
	}
	s.mapped = s.mapped[:q.Aliases]
	for a := 1; a < q.Aliases; a++ {
		s.mapped[a] = grow32(s.mapped[a])
	}
	if cap(s.dcodes) < len(q.Dims) {
		s.dcodes = append(s.dcodes[:cap(s.dcodes)], make([][]int32, len(q.Dims)-cap(s.dcodes))...)
	}
	s.dcodes = s.dcodes[:len(q.Dims)]
	for d, dim := range q.Dims {
		if dim.Codes == nil {
			s.dcodes[d] = grow32(s.dcodes[d])
		}
	}
}

// rowBytes is the memory of per-row buffers that hold what a batch of
// each of qs needs (rowsFor), as growRows sizes them for these queries.
func rowBytes(qs []*Query) int64 {
	n, aliases, coded := 0, 1, []bool{}
	for _, q := range qs {
		n, aliases = max(n, q.chunkLen()), max(aliases, q.Aliases)
		for d, dim := range q.Dims {
			if d == len(coded) {
				coded = append(coded, false)
			}
			coded[d] = coded[d] || dim.Codes == nil
		}
	}
	per := 4*5 + 8*2 + 1 + 4*(aliases-1)
	for _, c := range coded {
		if c {
			per += 4
		}
	}
	return int64(per * n)
}

// fit sizes what s keeps for q alone: the direct kernel's per-bucket
// buffers and the dictionary maps of its filters and joins, new.
func (s *scratch) fit(q *Query) {
	if q.DirectOK {
		nb := len(q.Buckets)
		if cap(s.bcount) < nb {
			s.bcount, s.bsum, s.bgids = make([]int64, nb), make([]int64, nb), make([]int32, nb)
		}
		s.bcount, s.bsum, s.bgids = s.bcount[:nb], s.bsum[:nb], s.bgids[:nb]
	}
	s.filterMaps = make([]column.DictMap, len(q.BaseFilters))
	s.reqMaps = make([]column.DictMap, len(q.Required))
	s.joinMaps = make([]column.DictMap, len(q.Joins))
}

// lendRows returns a scratch for q, one member of a union, whose per-row
// buffers are rows's (grown for every member: rowsFor): a worker runs its
// members one after another over each batch, each done with them when its
// chunk returns, so memory grows with the workers, not workers × members.
// What a member keeps between batches (filter pass rates, dictionary
// maps, buckets' buffers) is its own. rows, not s, goes back to the pool.
func lendRows(q *Query, rows *scratch) *scratch {
	s := &scratch{sel: rows.sel, bucket: rows.bucket, mapped: rows.mapped, mask: rows.mask, pass: rows.pass,
		keys: rows.keys, gids: rows.gids, mrows: rows.mrows, mgids: rows.mgids, dcodes: rows.dcodes}
	s.growRows(q) // q's lengths, in rows's buffers
	s.fit(q)
	return s
}

// pickScratch returns the scratch of q, one member of a union, for its
// selector (Selector.unionRows): the rows it picks, their buckets and
// metric masks (picked only for metrics of different needs) are its own,
// as the batch keeps them (Batch.picked) for the member's aggregation
// while the other members pick theirs; its other per-row buffers are
// lent's, used by the members in turn.
func pickScratch(q *Query, lent *scratch) *scratch {
	s := lendRows(q, lent)
	n := q.chunkLen()
	s.sel, s.bucket = make([]int32, 0, n), make([]int32, 0, n)
	if !q.sameNeeds() {
		s.mask = make([]uint64, n)
	}
	return s
}

// putScratch gives buffers back for the next query.
func putScratch(s *scratch) {
	s.filterMaps, s.reqMaps, s.joinMaps = nil, nil, nil
	s.order = passrate.Rates{}
	scratchPool.Put(s)
}

// chunkLen is the most rows one batch of q holds.
func (q *Query) chunkLen() int {
	if q.Rows > 0 {
		return max(min(column.ChunkRows, q.Rows), 1)
	}
	return column.ChunkRows
}

// pickBytes is the memory a union member's selector keeps of its own
// (pickScratch): picked rows and buckets, and masks when it picks them.
func pickBytes(q *Query) int64 {
	if q.sameNeeds() {
		return int64(8 * q.chunkLen())
	}
	return int64(16 * q.chunkLen())
}

// ownBytes is the memory a scratch keeps for q alone (fit).
func ownBytes(q *Query) int64 {
	if q.DirectOK {
		return 20 * int64(len(q.Buckets))
	}
	return 0
}

// Scan aggregates every base row of src in the question's range into one
// partial, on q.parallel workers. Worker w reads the groups g with
// g mod P = w, in order, and the partials merge in worker order, so an
// answer does not depend on scheduling nor on where the rows came from.
func Scan(ctx context.Context, q *Query, src Producer, mem *gate.Reservation, m *Meter) (*Partial, error) {
	out, err := ScanAll(ctx, q, src, mem, m)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// ScanAll is Scan of a union (Query.Members): one pass over src, whose
// batches hold the union's slots, aggregates each member's rows into a
// partial of its own, as Scan of that member alone would; it returns
// them in the members' order. A query that is not a union is its one
// member.
func ScanAll(ctx context.Context, q *Query, src Producer, mem *gate.Reservation, m *Meter) ([]*Partial, error) {
	members := q.Members
	if !q.union() {
		members = []Member{{Q: q}}
	}
	workers := q.Parallel
	// A worker's members take turns with one set of per-row buffers
	// (lendRows), held as they are.
	qs := make([]*Query, len(members))
	held := int64(0)
	for i, mb := range members {
		qs[i] = mb.Q
		held += ownBytes(mb.Q)
		if q.union() {
			held += pickBytes(mb.Q) // its selector's picks, a worker
		}
	}
	if err := mem.Grow(int64(workers) * (rowBytes(qs) + held)); err != nil {
		src.Close() // never run: what it opened is closed
		return nil, err
	}
	lents := make([]*scratch, workers)
	for w := range lents {
		lents[w] = rowsFor(qs)
		defer putScratch(lents[w])
	}
	// parts[i][w] is member i's partial on worker w; helds[i][w] what mem
	// holds for it.
	parts := make([][]*Partial, len(members))
	helds := make([][]int64, len(members))
	for i := range members {
		parts[i], helds[i] = make([]*Partial, workers), make([]int64, workers)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.Go(format.Guard(func() error { return src.Run(gctx) }))
	for w := 0; w < workers; w++ {
		g.Go(format.Guard(func() error {
			ss := make([]*scratch, len(members))
			bufs := make([]Batch, len(members))
			var zs *memberZones
			var ms memberShares
			if q.union() {
				zs, ms = newMemberZones(q), newMemberShares(q)
			}
			lent := lents[w]
			for i, mb := range members {
				parts[i][w] = newPartial(mb.Q)
				if mb.Q.ShareCodes {
					for m, mp := range mb.Q.Metrics {
						for t, tp := range mp.Terms {
							parts[i][w].Terms[m][t].share(tp, w, workers)
						}
					}
				}
				if q.union() {
					ss[i] = lendRows(mb.Q, lent)
				} else {
					lent.fit(mb.Q)
					ss[i] = lent
				}
			}
			return src.Scan(gctx, w, func(b *Batch) error {
				if err := gctx.Err(); err != nil {
					return err
				}
				if !q.ShareCodes || w == 0 { // every worker visits every row
					m.visit(b.Hi - b.Lo)
				}
				if WorkerHook != nil {
					WorkerHook()
				}
				zs.next()
				ms.next()
				for k := range members {
					i, bi := k, b
					if q.union() {
						i = ms.order[k] // widest range first (memberShares)
						bi = q.member(i, b, &bufs[i], zs)
						if bi.picked == nil {
							ms.lend(i, bi)
						}
					}
					mb := members[i]
					mb.Q.chunk(ss[i], parts[i][w], bi)
					if err := mb.Q.account(parts[i][w], mem, &helds[i][w]); err != nil {
						return err
					}
				}
				return nil
			})
		}))
	}
	err := g.Wait()
	if cerr := src.Close(); err == nil {
		err = cerr
	}
	out := make([]*Partial, len(members))
	for i, mb := range members {
		if err == nil {
			out[i], err = mb.Q.mergeWorkers(ctx, parts[i], mem, helds[i])
		}
	}
	if err != nil {
		for _, ps := range parts {
			closeAll(ps)
		}
		return nil, err
	}
	return out, nil
}

// mergeWorkers folds the workers' partials into the first, in worker
// order.
func (q *Query) mergeWorkers(ctx context.Context, parts []*Partial, mem *gate.Reservation, helds []int64) (*Partial, error) {
	out := parts[0]
	for w, p := range parts[1:] {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := q.merge(ctx, out, p, mem, &helds[0]); err != nil {
			return nil, err
		}
		// What p moved into out is out's now.
		if n := p.bytes(q); n < helds[w+1] {
			mem.Shrink(helds[w+1] - n)
		}
		p.Close()
		parts[w+1] = nil
	}
	return out, nil
}

// merge folds src into dst, translating the codes of dimensions and
// distinct values each worker numbered itself.
func (q *Query) merge(ctx context.Context, dst, src *Partial, mem *gate.Reservation, held *int64) error {
	trs := make([][]int32, len(q.Dims))
	for d, b := range src.Books {
		if b != nil {
			trs[d] = b.Into(dst.Books[d])
			dst.Groups.Grow(d, dst.Books[d].Card())
		}
	}
	ng := src.Groups.Len()
	remap := make([]int32, ng)
	for g := 0; g < ng; g++ {
		if g%column.CheckEvery == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		parts := src.Groups.Parts(g)
		for d, tr := range trs {
			if tr != nil {
				parts[d+1] = uint32(tr[parts[d+1]])
			}
		}
		remap[g] = dst.Groups.ID(parts)
	}
	dst.grow(q)
	for m, mp := range q.Metrics {
		for sg, dg := range remap {
			dst.Rows[m][dg] += src.Rows[m][sg]
		}
		for t, tp := range mp.Terms {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			ds, ss := dst.Terms[m][t], src.Terms[m][t]
			if ds.dset != nil || ss.dset != nil || (setTerm(tp) && ds.book.Card()+ss.book.Card() > DistinctBookMax) {
				ds.toDistinct(tp)
				ss.toDistinct(tp)
			}
			var tr []int32
			if b := ss.book; b != nil && b.Card() > 0 {
				tr = b.Into(ds.book)
			}
			ds.merge(tp, ss, remap, tr)
			if err := q.account(dst, mem, held); err != nil {
				return err
			}
		}
	}
	return q.account(dst, mem, held)
}

// closeAll gives back the spill files of the partials.
func closeAll(parts []*Partial) {
	for _, p := range parts {
		if p != nil {
			p.Close()
		}
	}
}

// WorkerHook, when set (by tests only), runs in a scan worker before each
// batch: a test plants a panic where no caller could recover it.
var WorkerHook func()
