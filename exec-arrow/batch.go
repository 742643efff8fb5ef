package engine

import (
	"context"

	"sutura.dev/exec-arrow/internal/column"
)

// batch is a run of base-table rows as the aggregation kernels read them:
// one column per slot of the question (query.base) over rows [lo, hi). A
// batch streamed from a file holds columns of its own rows (lo is 0); a
// batch of cached columns holds the whole columns and a segment's range,
// so the kernels index both alike.
type batch struct {
	lo, hi int
	group  int
	cols   []*column.Column
	// oneBucket says every row is in the range, in bucket: the time
	// column is not read (and may be nil).
	oneBucket bool
	bucket    int32
	// inside says every row's time is in the range and none is null
	// (known from a cached segment's zone): the time column only gives
	// each row its bucket.
	inside bool
}

// producer yields the base-table rows of one question as batches. It is
// the seam between where rows come from and the aggregation: the cache
// (cachedProducer), Parquet row groups (parquetProducer), CSV and NDJSON
// blocks (textProducer), and any other source of rows — a federated
// combine's partials arriving from another data system — that can present
// them as typed columns. The aggregation (query.chunk, the kernels of
// agg.go, partial merging) is the same for all of them.
type producer interface {
	// run feeds the workers, when the producer needs a goroutine of its
	// own to (a dispatcher reading a file in order); it returns when all
	// is fed, or at the first error.
	run(ctx context.Context) error
	// scan reads worker w's share of the batches (the groups g with
	// g mod P = w), in order, calling each for every batch that may hold
	// a row of the question's range, until each returns an error.
	scan(ctx context.Context, w int, each func(*batch) error) error
	// close releases what the producer holds and reports what only the
	// end of the rows can tell; it is called once, after run and every
	// scan have returned.
	close() error
}

// cachedProducer scans cached columns segment by segment, skipping the
// segments whose zone (day range of the time column) misses the range.
type cachedProducer struct {
	q     *query
	view  *tableView
	zones []column.DayZone
	cols  []*column.Column
}

func newCachedProducer(q *query, v *tableView) *cachedProducer {
	cols := make([]*column.Column, len(q.base))
	for i, proto := range q.base {
		cols[i] = v.cols[proto.Name]
	}
	return &cachedProducer{q: q, view: v, cols: cols, zones: cols[q.timeSlot].Zones(v.segs)}
}

func (p *cachedProducer) scan(ctx context.Context, w int, each func(*batch) error) error {
	for i, s := range p.view.segs {
		if s.Group%p.q.parallel != w || !p.q.meets(p.zones[i]) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		b := &batch{lo: s.Lo, hi: s.Hi, group: s.Group, cols: p.cols}
		if p.cols[p.q.timeSlot].Valid == nil {
			b.bucket, b.oneBucket = p.q.oneBucket(p.zones[i])
			b.inside = p.q.inside(p.zones[i])
		}
		if err := each(b); err != nil {
			return err
		}
	}
	return nil
}

func (p *cachedProducer) run(context.Context) error { return nil }

func (p *cachedProducer) close() error { return nil }

// oneBucket reports whether every day of a zone (of a time column with no
// null) is in the range and in one bucket, and which.
func (q *query) oneBucket(z column.DayZone) (int32, bool) {
	lo, hi := z.Min-q.start, z.Max-q.start
	if z.Min > z.Max || lo < 0 || hi >= q.span || q.bucketOf[lo] != q.bucketOf[hi] {
		return 0, false
	}
	return q.bucketOf[lo], true
}

// inside reports whether every day of a zone is in the question's range.
func (q *query) inside(z column.DayZone) bool {
	return z.Min <= z.Max && z.Min >= q.start && z.Max < q.start+q.span
}

// meets reports whether a zone may hold a row of the question's range.
func (q *query) meets(z column.DayZone) bool {
	return z.Min <= z.Max && z.Max >= q.start && z.Min < q.start+q.span
}
