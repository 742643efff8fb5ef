package engine

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow/bitutil"
)

// segment is a run of a table's rows that is read, cached and scanned as
// one batch: at most chunkRows rows of one Parquet row group, or one block
// of chunkRows rows of a CSV or NDJSON part. group numbers the row group
// (or block) across the table's parts, in file order.
//
// Every producer gives group g to worker g mod P (P is Config.Parallelism)
// and each worker reads its groups in order, so a question sums its rows
// in the same order, and gets the same bits, whether they come from the
// files or from the cache.
type segment struct{ lo, hi, group int }

// batch is a run of base-table rows as the aggregation kernels read them:
// one column per slot of the question (query.base) over rows [lo, hi). A
// batch streamed from a file holds columns of its own rows (lo is 0); a
// batch of cached columns holds the whole columns and a segment's range,
// so the kernels index both alike.
type batch struct {
	lo, hi int
	group  int
	cols   []*column
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
	zones []dayZone
	cols  []*column
}

func newCachedProducer(q *query, v *tableView) *cachedProducer {
	cols := make([]*column, len(q.base))
	for i, proto := range q.base {
		cols[i] = v.cols[proto.name]
	}
	return &cachedProducer{q: q, view: v, cols: cols, zones: cols[q.timeSlot].zones(v.segs)}
}

func (p *cachedProducer) scan(ctx context.Context, w int, each func(*batch) error) error {
	for i, s := range p.view.segs {
		if s.group%p.q.parallel != w || !p.q.meets(p.zones[i]) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		b := &batch{lo: s.lo, hi: s.hi, group: s.group, cols: p.cols}
		if p.cols[p.q.timeSlot].valid == nil {
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
func (q *query) oneBucket(z dayZone) (int32, bool) {
	lo, hi := z.min-q.start, z.max-q.start
	if z.min > z.max || lo < 0 || hi >= q.span || q.bucketOf[lo] != q.bucketOf[hi] {
		return 0, false
	}
	return q.bucketOf[lo], true
}

// inside reports whether every day of a zone is in the question's range.
func (q *query) inside(z dayZone) bool {
	return z.min <= z.max && z.min >= q.start && z.max < q.start+q.span
}

// meets reports whether a zone may hold a row of the question's range.
func (q *query) meets(z dayZone) bool {
	return z.min <= z.max && z.max >= q.start && z.min < q.start+q.span
}

// zoneOf is the day range of rows [lo, hi) of a time column.
func zoneOf(c *column, lo, hi int) dayZone {
	z := dayZone{min: 1<<31 - 1, max: -1 << 31}
	if c.days != nil && c.valid == nil {
		for _, d := range c.days[lo:hi] {
			z.min, z.max = min(z.min, int32(d)), max(z.max, int32(d))
		}
		return z
	}
	for i := lo; i < hi; i++ {
		if c.valid != nil && !bitutil.BitIsSet(c.valid, i) {
			continue
		}
		var d int32
		if c.days != nil {
			d = int32(c.days[i])
		} else {
			d = dayOfMicros(c.ints[i])
		}
		z.min, z.max = min(z.min, d), max(z.max, d)
	}
	return z
}
