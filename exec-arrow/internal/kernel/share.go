package kernel

import "math/bits"

// Shared distinct codes.
//
// A count_distinct over a cached column keeps a bit per code per group
// on each worker (TermPlan.Bitsets): tens of millions of codes by dozens
// of groups are hundreds of megabytes a worker. When a question's every
// term is such a count and one set fits the working set where one a
// worker does not, the question splits the codes instead of the rows
// (Query.ShareCodes): every worker reads every batch of the cached
// columns and keeps the bits of its share of each term's codes only — the
// words w·words/P up to (w+1)·words/P of each group's bitset, on worker
// w of P — so the workers together hold one set and set their bits at
// once. Shares are disjoint, so a group's distinct count is the sum of
// its counts in each share: merging adds counts, not bits. Only worker 0
// counts the rows it visits (Meter), as every worker sees them all.

// CanShareCodes reports whether q may split its distinct counts' codes
// between its workers: a question that is no union, on more than one
// worker, whose every term is a count_distinct over a cached column's
// codes kept in bitsets.
func (q *Query) CanShareCodes() bool {
	if q.union() || q.Parallel < 2 || len(q.Metrics) == 0 {
		return false
	}
	for _, mp := range q.Metrics {
		for _, tp := range mp.Terms {
			if tp.Op != OpDistinct || tp.Codes == nil || tp.words == 0 {
				return false
			}
		}
	}
	return true
}

// share makes s keep worker w's share of t's codes, of p workers: the
// codes of words w·words/p up to (w+1)·words/p, each as its code less
// the share's first plus one (a pair's code is never 0, which a pair set
// keeps for an empty slot), in bitsets of one word more a group.
func (s *termState) share(t *TermPlan, w, p int) {
	lo, hi := w*t.words/p, (w+1)*t.words/p
	s.shared = true
	s.words, s.codeLo, s.codeHi = hi-lo+1, int32(lo*64), int32(hi*64)
}

// mergeShare adds the distinct counts of src's share of the codes, per
// group, to s's group remap[sg] (counted): shares hold different codes,
// so their counts add.
func (s *termState) mergeShare(src *termState, remap []int32) {
	counts := src.shareCounts(len(remap))
	for len(s.counted) < len(s.n) {
		s.counted = append(s.counted, 0)
	}
	for sg, dg := range remap {
		s.counted[dg] += counts[sg]
	}
}

// shareCounts is the distinct codes of each of ng groups in s's own
// bitsets or pairs, with what shares merged into it counted.
func (s *termState) shareCounts(ng int) []int64 {
	out := make([]int64, ng)
	if s.set == nil {
		w := s.words
		for g := 0; g < ng && (g+1)*w <= len(s.bits); g++ {
			for _, x := range s.bits[g*w : (g+1)*w] {
				out[g] += int64(bits.OnesCount64(x))
			}
		}
	} else {
		for k := range s.set.All() {
			out[k>>32]++
		}
	}
	for g, n := range s.counted {
		if g < ng {
			out[g] += n
		}
	}
	return out
}
