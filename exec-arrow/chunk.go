package engine

import (
	"github.com/apache/arrow-go/v18/arrow/bitutil"

	"sutura.dev/domain"
)

// chunk aggregates the rows of b into p. The pipeline narrows a selection
// vector of row indexes: range and bucket, caller filters on the base
// table, the metrics' required filters (a row stays when it counts for at
// least one metric), the joins, caller filters on joined tables; then it
// packs the group keys, finds the group ids, and runs each metric's
// kernels over the rows that count for it.
func (q *query) chunk(s *scratch, p *partial, b *batch) {
	n := q.selectRange(s, b)
	if n == 0 {
		return
	}
	for i, f := range q.baseFilters {
		f.eval(b.cols[f.slot], s.sel[:n], s.pass[:n], &s.filterMaps[i])
		n = s.compact(n, s.pass, 0)
	}
	n = q.maskMetrics(s, b, n)
	for i, j := range q.joins {
		from, fc := s.sel[:n], j.fromCol
		if j.from == 0 {
			fc = b.cols[j.fromSlot]
		} else {
			from = s.mapped[j.from][:n]
		}
		j.apply(fc, from, s.mapped[j.to][:n], &s.joinMaps[i])
	}
	for _, f := range q.joinFilters {
		f.eval(f.col, s.mapped[f.alias][:n], s.pass[:n], nil)
		n = s.compact(n, s.pass, len(s.mapped)-1)
	}
	if n == 0 {
		return
	}
	q.groupIDs(s, p, b, n)
	p.grow(q)
	for m, mp := range q.metrics {
		rows, gids := s.sel[:n], s.gids[:n]
		if len(mp.required) > 0 {
			bit := uint64(1) << m
			j := 0
			for k := 0; k < n; k++ {
				if s.mask[k]&bit != 0 {
					s.mrows[j], s.mgids[j] = s.sel[k], s.gids[k]
					j++
				}
			}
			if j < n {
				rows, gids = s.mrows[:j], s.mgids[:j]
			}
		}
		counts := p.rows[m]
		for _, g := range gids {
			counts[g]++
		}
		for t, tp := range mp.terms {
			p.terms[m][t].update(tp, b.cols[tp.slot], rows, gids)
		}
	}
}

// selectRange fills sel with the rows of b whose time falls in the range,
// and bucket with their bucket.
func (q *query) selectRange(s *scratch, b *batch) int {
	sel, bucket := s.sel[:0], s.bucket[:0]
	if b.oneBucket {
		for r := b.lo; r < b.hi; r++ {
			sel = append(sel, int32(r))
			bucket = append(bucket, b.bucket)
		}
		s.sel, s.bucket = sel, bucket
		return len(sel)
	}
	t := b.cols[q.timeSlot]
	lo, hi := b.lo, b.hi
	start, span, of := q.start, uint32(q.span), q.bucketOf
	valid := t.valid
	if t.days != nil {
		days := t.days[lo:hi]
		for i, d := range days {
			o := int32(d) - start
			if uint32(o) < span && (valid == nil || bitutil.BitIsSet(valid, lo+i)) {
				sel = append(sel, int32(lo+i))
				bucket = append(bucket, of[o])
			}
		}
	} else {
		for i, us := range t.ints[lo:hi] {
			o := dayOfMicros(us) - start
			if uint32(o) < span && (valid == nil || bitutil.BitIsSet(valid, lo+i)) {
				sel = append(sel, int32(lo+i))
				bucket = append(bucket, of[o])
			}
		}
	}
	s.sel, s.bucket = sel, bucket
	return len(sel)
}

// maskMetrics sets each position's metric mask from the required filters
// and drops the positions no metric counts.
func (q *query) maskMetrics(s *scratch, b *batch, n int) int {
	all := uint64(1)<<len(q.metrics) - 1
	if len(q.required) == 0 {
		for k := 0; k < n; k++ {
			s.mask[k] = all
		}
		return n
	}
	// bits[k] holds bit i when required filter i passes at position k.
	bits := s.keys[:n]
	clear(bits)
	pass := s.pass[:n]
	for i, rp := range q.required {
		rp.eval(b.cols[rp.slot], s.sel[:n], pass, &s.reqMaps[i])
		for k, ok := range pass {
			bits[k] |= uint64(bitOf(ok)) << i // branch-free: filters are unpredictable
		}
	}
	j := 0
	for k := 0; k < n; k++ {
		var m uint64
		b := bits[k]
		for mi, need := range q.needs {
			m |= uint64(bitOf(b&need == need)) << mi
		}
		s.sel[j], s.bucket[j], s.mask[j] = s.sel[k], s.bucket[k], m
		j += bitOf(m != 0)
	}
	s.sel, s.bucket = s.sel[:j], s.bucket[:j]
	return j
}

// bitOf is 1 for true and 0 for false, compiled without a branch.
func bitOf(b bool) int {
	var i int
	if b {
		i = 1
	}
	return i
}

// compact keeps the positions where keep is true, moving the mapped rows
// of aliases 1..joined along.
func (s *scratch) compact(n int, keep []bool, joined int) int {
	j := 0
	for k := 0; k < n; k++ {
		s.sel[j], s.bucket[j], s.mask[j] = s.sel[k], s.bucket[k], s.mask[k]
		for a := 1; a <= joined; a++ {
			s.mapped[a][j] = s.mapped[a][k]
		}
		j += bitOf(keep[k])
	}
	s.sel, s.bucket = s.sel[:j], s.bucket[:j]
	return j
}

// groupIDs computes the group id of every position. Dimensions the worker
// numbers itself are coded first, since their codes may grow the key
// space; then the keys are packed (or held whole) and looked up.
func (q *query) groupIDs(s *scratch, p *partial, b *batch, n int) {
	rowsOf := func(alias int) []int32 {
		if alias == 0 {
			return s.sel[:n]
		}
		return s.mapped[alias][:n]
	}
	for d, dim := range q.dims {
		if dim.codes != nil {
			continue
		}
		c, book, m := b.cols[dim.slot], p.books[d], &p.maps[d]
		dc := s.dcodes[d][:n]
		if c.typ == domain.TypeText {
			m.reset(c)
			valid, idx := c.valid, c.idx
			for k, r := range s.sel[:n] {
				if valid != nil && !bitutil.BitIsSet(valid, int(r)) {
					dc[k] = 0
					continue
				}
				i := idx[r]
				code := m.vals[i]
				if code < 0 {
					code = book.text(c.dict[i])
					m.vals[i] = code
				}
				dc[k] = code
			}
		} else {
			for k, r := range s.sel[:n] {
				dc[k] = book.codeOf(c, r, m)
			}
		}
		p.groups.grow(d, book.card())
	}
	g := p.groups
	if !g.packed {
		for k := 0; k < n; k++ {
			var key groupKey
			key[0] = uint32(s.bucket[k])
			for d, dim := range q.dims {
				if dim.codes == nil {
					key[d+1] = uint32(s.dcodes[d][k])
				} else if r := rowsOf(dim.alias)[k]; r >= 0 {
					key[d+1] = uint32(dim.codes.codes[r])
				}
			}
			s.gids[k] = g.wideID(key)
		}
		return
	}
	keys := s.keys[:n]
	for k, bk := range s.bucket[:n] {
		keys[k] = uint64(bk)
	}
	for d, dim := range q.dims {
		radix := g.radix[d]
		if dim.codes == nil {
			for k, c := range s.dcodes[d][:n] {
				keys[k] = keys[k]*radix + uint64(c)
			}
			continue
		}
		codes := dim.codes.codes
		for k, r := range rowsOf(dim.alias) {
			var c uint64
			if r >= 0 {
				c = uint64(codes[r])
			}
			keys[k] = keys[k]*radix + c
		}
	}
	gids := s.gids[:n]
	if g.dense != nil {
		for k, key := range keys {
			id := g.dense[key]
			if id == 0 {
				g.keys = append(g.keys, key)
				id = int32(len(g.keys))
				g.dense[key] = id
			}
			gids[k] = id - 1
		}
		return
	}
	for k, key := range keys {
		gids[k] = g.packedID(key)
	}
}
