package engine

import (
	"context"
	"sync"

	"golang.org/x/sync/errgroup"
)

// chunkRows is how many base rows a worker scans between checks of the
// context: small enough that cancellation returns within milliseconds,
// large enough that per-chunk overhead vanishes.
const chunkRows = 1 << 16

// denseGroupKeys is the largest packed key space grouped through a direct
// table instead of a hash map.
const denseGroupKeys = 1 << 16

// grouper assigns group ids to group keys.
type grouper struct {
	dense []int32 // packed key → gid+1
	m     map[uint64]int32
	wide  map[[5]uint32]int32
	keys  []uint64    // packed: key per gid
	wkeys [][5]uint32 // wide: key per gid
}

func newGrouper(q *query) *grouper {
	g := &grouper{}
	switch {
	case !q.packed:
		g.wide = map[[5]uint32]int32{}
	case q.space <= denseGroupKeys:
		g.dense = make([]int32, q.space)
	default:
		g.m = map[uint64]int32{}
	}
	return g
}

func (g *grouper) len() int {
	if g.wide != nil {
		return len(g.wkeys)
	}
	return len(g.keys)
}

func (g *grouper) packed(key uint64) int32 {
	if g.dense != nil {
		id := g.dense[key]
		if id == 0 {
			g.keys = append(g.keys, key)
			id = int32(len(g.keys))
			g.dense[key] = id
		}
		return id - 1
	}
	id, ok := g.m[key]
	if !ok {
		id = int32(len(g.keys))
		g.keys = append(g.keys, key)
		g.m[key] = id
	}
	return id
}

func (g *grouper) wideKey(key [5]uint32) int32 {
	id, ok := g.wide[key]
	if !ok {
		id = int32(len(g.wkeys))
		g.wkeys = append(g.wkeys, key)
		g.wide[key] = id
	}
	return id
}

// partial is one worker's aggregation: its groups and, per metric, the
// rows that entered each group and the term states.
type partial struct {
	groups *grouper
	rows   [][]int64      // per metric, per group
	terms  [][]*termState // per metric, per term
}

func newPartial(q *query) *partial {
	p := &partial{groups: newGrouper(q), rows: make([][]int64, len(q.metrics)), terms: make([][]*termState, len(q.metrics))}
	for m, mp := range q.metrics {
		p.terms[m] = make([]*termState, len(mp.terms))
		for t := range mp.terms {
			p.terms[m][t] = &termState{}
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
	n := ng * 24
	if p.groups.dense != nil {
		n += int64(4 * len(p.groups.dense))
	}
	for m := range q.metrics {
		n += ng * 8
		for _, s := range p.terms[m] {
			n += int64(8*(cap(s.i)+cap(s.f)+cap(s.n)+cap(s.bits))) + int64(24*len(s.set))
		}
	}
	return n
}

// scratch is a worker's per-chunk buffers, reused across chunks.
type scratch struct {
	sel    []int32   // base rows, compacted as filters drop them
	bucket []int32   // per position
	mapped [][]int32 // per alias (1..): row of that table per position, -1 none
	mask   []uint64  // per position: the metrics the row counts for
	pass   []bool
	keys   []uint64
	gids   []int32
	mrows  []int32
	mgids  []int32
	reqs   [][]bool // per required filter
}

// scratchPool keeps scratch buffers between queries: a small question
// would otherwise allocate (and the collector clear) buffers for a whole
// chunk on every call.
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
	if cap(s.mapped) < len(q.views) {
		s.mapped = make([][]int32, len(q.views))
	}
	s.mapped = s.mapped[:len(q.views)]
	for a := 1; a < len(q.views); a++ {
		s.mapped[a] = grow32(s.mapped[a])
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
	return s
}

// putScratch gives buffers back for the next query.
func putScratch(s *scratch) { scratchPool.Put(s) }

// chunkLen is the most rows one chunk of q holds.
func (q *query) chunkLen() int { return max(min(chunkRows, q.rows), 1) }

// scratchBytes is the memory newScratch allocates.
func scratchBytes(q *query) int64 {
	chunkRows := int64(q.chunkLen())
	per := 4 + 4 + 8 + 1 + 8 + 4 + 4 + 4 + 4*int64(len(q.views)-1) + int64(len(q.required))
	return per * chunkRows
}

// scan aggregates every base row in the question's range into one
// partial, in parallel over the row chunks whose day range meets it.
// Worker w takes chunks w, w+P, ... of that list; partials merge in worker
// order, so a result does not depend on scheduling.
func (e *Engine) scan(ctx context.Context, q *query, mem *reservation, m *meter) (*partial, error) {
	chunks := q.chunksInRange()
	visited := 0
	for _, c := range chunks {
		visited += min((c+1)*chunkRows, q.rows) - c*chunkRows
	}
	m.account(q, visited)
	nChunks := len(chunks)
	workers := min(e.cfg.Parallelism, nChunks)
	if nChunks < 4 || workers < 1 {
		workers = 1
	}
	if err := mem.grow(int64(workers) * scratchBytes(q)); err != nil {
		return nil, err
	}
	parts := make([]*partial, workers)
	g, gctx := errgroup.WithContext(ctx)
	for w := 0; w < workers; w++ {
		g.Go(func() error {
			p := newPartial(q)
			parts[w] = p
			s := newScratch(q)
			defer putScratch(s)
			var held int64
			for i := w; i < nChunks; i += workers {
				if err := gctx.Err(); err != nil {
					return err
				}
				lo := chunks[i] * chunkRows
				q.chunk(s, p, lo, min(lo+chunkRows, q.rows))
				if b := p.bytes(q); b > held {
					if err := mem.grow(b - held); err != nil {
						return err
					}
					held = b
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
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

// merge folds src into dst.
func (q *query) merge(ctx context.Context, dst, src *partial, mem *reservation) error {
	ng := src.groups.len()
	remap := make([]int32, ng)
	for g := 0; g < ng; g++ {
		if g%checkEvery == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if src.groups.wide != nil {
			remap[g] = dst.groups.wideKey(src.groups.wkeys[g])
		} else {
			remap[g] = dst.groups.packed(src.groups.keys[g])
		}
	}
	before := dst.bytes(q)
	dst.grow(q)
	if err := mem.grow(dst.bytes(q) - before); err != nil {
		return err
	}
	for m, mp := range q.metrics {
		for sg, dg := range remap {
			dst.rows[m][dg] += src.rows[m][sg]
		}
		for t, tp := range mp.terms {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			dst.terms[m][t].merge(tp, src.terms[m][t], remap)
		}
	}
	return nil
}
