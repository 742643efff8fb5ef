package engine

import (
	"context"
	"sync"

	"golang.org/x/sync/errgroup"

	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/format"
)

// partial is one worker's aggregation: its groups, the codebooks of the
// dimensions it numbers itself, and per metric the rows that entered each
// group and the term states.
type partial struct {
	groups *grouper
	books  []*codebook    // per dimension: nil when the codes are fixed
	maps   []dictMap      // per dimension: a batch dictionary's codes
	rows   [][]int64      // per metric, per group
	terms  [][]*termState // per metric, per term
}

func newPartial(q *query) *partial {
	p := &partial{groups: newGrouper(len(q.buckets), q.radix), rows: make([][]int64, len(q.metrics)),
		terms: make([][]*termState, len(q.metrics)), books: make([]*codebook, len(q.dims)), maps: make([]dictMap, len(q.dims))}
	for d, dim := range q.dims {
		if dim.codes == nil {
			p.books[d] = newCodebook(dim.col.Type)
		}
	}
	for m, mp := range q.metrics {
		p.terms[m] = make([]*termState, len(mp.terms))
		for t, tp := range mp.terms {
			p.terms[m][t] = newTermState(tp)
		}
	}
	return p
}

// grow sizes every state for the current number of groups.
func (p *partial) grow(q *query) {
	ng := p.groups.len()
	for m, mp := range q.metrics {
		for len(p.rows[m]) < ng {
			p.rows[m] = append(p.rows[m], 0)
		}
		for t, tp := range mp.terms {
			p.terms[m][t].grow(tp, ng)
		}
	}
}

// bytes estimates the memory p holds.
func (p *partial) bytes(q *query) int64 {
	ng := int64(p.groups.len())
	n := p.groups.bytes()
	for _, b := range p.books {
		if b != nil {
			n += b.size
		}
	}
	for m := range q.metrics {
		n += ng * 8
		for _, s := range p.terms[m] {
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
	reqs   [][]bool  // per required filter
	masked bool      // mask holds the batch's metric masks

	// Per-batch dictionary caches of base-table text columns.
	filterMaps []dictMap // per base caller filter
	reqMaps    []dictMap // per required filter
	joinMaps   []dictMap // per join
}

// scratchPool keeps scratch buffers between queries: a small question
// would otherwise allocate (and the collector clear) buffers for a whole
// batch on every call.
var scratchPool sync.Pool

// newScratch returns scratch buffers for q, reused from earlier queries
// when they are large enough; release them with putScratch.
func newScratch(q *query) *scratch {
	n := q.chunkLen()
	s, _ := scratchPool.Get().(*scratch)
	if s == nil {
		s = &scratch{}
	}
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
	if q.directOK {
		nb := len(q.buckets)
		if cap(s.bcount) < nb {
			s.bcount, s.bsum, s.bgids = make([]int64, nb), make([]int64, nb), make([]int32, nb)
		}
		s.bcount, s.bsum, s.bgids = s.bcount[:nb], s.bsum[:nb], s.bgids[:nb]
	}
	if cap(s.mapped) < len(q.views) {
		s.mapped = make([][]int32, len(q.views))
	}
	s.mapped = s.mapped[:len(q.views)]
	for a := 1; a < len(q.views); a++ {
		s.mapped[a] = grow32(s.mapped[a])
	}
	if cap(s.dcodes) < len(q.dims) {
		s.dcodes = make([][]int32, len(q.dims))
	}
	s.dcodes = s.dcodes[:len(q.dims)]
	for d, dim := range q.dims {
		if dim.codes == nil {
			s.dcodes[d] = grow32(s.dcodes[d])
		}
	}
	if cap(s.reqs) < len(q.required) {
		s.reqs = make([][]bool, len(q.required))
	}
	s.reqs = s.reqs[:len(q.required)]
	for i := range s.reqs {
		if cap(s.reqs[i]) < n {
			s.reqs[i] = make([]bool, n)
		}
		s.reqs[i] = s.reqs[i][:n]
	}
	s.filterMaps = make([]dictMap, len(q.baseFilters))
	s.reqMaps = make([]dictMap, len(q.required))
	s.joinMaps = make([]dictMap, len(q.joins))
	return s
}

// putScratch gives buffers back for the next query.
func putScratch(s *scratch) {
	s.filterMaps, s.reqMaps, s.joinMaps = nil, nil, nil
	scratchPool.Put(s)
}

// chunkLen is the most rows one batch of q holds.
func (q *query) chunkLen() int {
	if q.rows > 0 {
		return max(min(column.ChunkRows, q.rows), 1)
	}
	return column.ChunkRows
}

// scratchBytes is the memory newScratch allocates.
func scratchBytes(q *query) int64 {
	chunkRows := int64(q.chunkLen())
	per := 4 + 4 + 8 + 1 + 8 + 4 + 4 + 4 + 4*int64(len(q.views)-1) + 4*int64(len(q.dims)) + int64(len(q.required))
	n := per * chunkRows
	if q.directOK {
		n += 20 * int64(len(q.buckets))
	}
	return n
}

// scan aggregates every base row of src in the question's range into one
// partial, on q.parallel workers. Worker w reads the groups g with
// g mod P = w, in order, and the partials merge in worker order, so an
// answer does not depend on scheduling nor on where the rows came from.
func scan(ctx context.Context, q *query, src producer, mem *reservation, m *meter) (*partial, error) {
	workers := q.parallel
	if err := mem.grow(int64(workers) * scratchBytes(q)); err != nil {
		return nil, err
	}
	parts := make([]*partial, workers)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(format.Guard(func() error { return src.run(gctx) }))
	for w := 0; w < workers; w++ {
		g.Go(format.Guard(func() error {
			p := newPartial(q)
			parts[w] = p
			s := newScratch(q)
			defer putScratch(s)
			var held int64
			return src.scan(gctx, w, func(b *batch) error {
				if err := gctx.Err(); err != nil {
					return err
				}
				m.visit(b.hi - b.lo)
				if workerHook != nil {
					workerHook()
				}
				q.chunk(s, p, b)
				if n := p.bytes(q); n > held {
					if err := mem.grow(n - held); err != nil {
						return err
					}
					held = n
				}
				return nil
			})
		}))
	}
	err := g.Wait()
	if cerr := src.close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	out := parts[0]
	for _, p := range parts[1:] {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := q.merge(ctx, out, p, mem); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// merge folds src into dst, translating the codes of dimensions and
// distinct values each worker numbered itself.
func (q *query) merge(ctx context.Context, dst, src *partial, mem *reservation) error {
	before := dst.bytes(q)
	trs := make([][]int32, len(q.dims))
	for d, b := range src.books {
		if b != nil {
			trs[d] = b.into(dst.books[d])
			dst.groups.grow(d, dst.books[d].card())
		}
	}
	ng := src.groups.len()
	remap := make([]int32, ng)
	for g := 0; g < ng; g++ {
		if g%column.CheckEvery == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		parts := src.groups.parts(g)
		for d, tr := range trs {
			if tr != nil {
				parts[d+1] = uint32(tr[parts[d+1]])
			}
		}
		remap[g] = dst.groups.id(parts)
	}
	dst.grow(q)
	for m, mp := range q.metrics {
		for sg, dg := range remap {
			dst.rows[m][dg] += src.rows[m][sg]
		}
		for t, tp := range mp.terms {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			var tr []int32
			if b := src.terms[m][t].book; b != nil && b.card() > 0 {
				tr = b.into(dst.terms[m][t].book)
			}
			dst.terms[m][t].merge(tp, src.terms[m][t], remap, tr)
		}
	}
	return mem.grow(dst.bytes(q) - before)
}

// workerHook, when set (by tests only), runs in a scan worker before each
// batch: a test plants a panic where no caller could recover it.
var workerHook func()
