package engine

import (
	"context"
	"fmt"
	"io/fs"
	"math"
	"sync"
	"sync/atomic"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/check"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/files"
	"sutura.dev/exec-arrow/internal/format"
	"sutura.dev/exec-arrow/internal/gate"
	"sutura.dev/exec-arrow/internal/kernel"
	"sutura.dev/exec-arrow/internal/text"
)

// task is one unit of streamed work for a worker: a Parquet row group to
// decode, or a block of CSV or NDJSON records to parse.
type task struct {
	group int
	part  *streamPart
	rg    int        // Parquet: the row group within the part
	block *textBlock // CSV, NDJSON: the records
	// Text read in ranges (block nil): the records that start in [lo, hi).
	lo, hi int64
}

// streamPart is one file of the streamed table.
type streamPart struct {
	p  files.Part
	pq *parquetPart // nil for text
	// NDJSON: the wanted columns some object of the part holds, and how
	// many objects it has (a column no object holds is an error).
	seen    []atomic.Bool
	objects atomic.Int64
	// narrowed: some object was not read, its time out of the range
	// (text.Late): a column no object read holds may be in one of those.
	narrowed atomic.Bool
	// Text read in ranges: the file, opened by the dispatcher and closed
	// with the producer, and its size; CSV: the field of each slot, the
	// number of fields a record has, where the records begin (past the
	// header), and the ranges' quote links.
	file    fs.File
	size    int64
	at      []int
	nfields int
	base    int64
	quotes  *text.Quotes
}

// fileProducer streams the base table's files. One dispatcher walks the
// parts in order and numbers their row groups (Parquet) or blocks (CSV,
// NDJSON) as groups; group g goes to worker g mod P, which decodes or
// parses it into a batch and aggregates it. A Parquet row group whose
// time-column statistics miss the range is skipped before any page of it
// is read.
type fileProducer struct {
	q      *query
	mem    *gate.Reservation
	fsys   fs.FS
	parts  []*streamPart
	work   []chan task
	blocks *text.Blocks // text block buffers and spans, recycled
	names  []string     // the base columns' names: the NDJSON members read
	// timeSlots are the query's time slots (kernel.Query.TimeSlots): a
	// union's members may each read their own.
	timeSlots []int
	// The row groups of the Parquet parts before the first text part are
	// known from their footers: direct[w] lists worker w's, and it reads
	// them without waiting for a dispatcher. The dispatcher (run) numbers
	// the rest, from part dispatchFrom and group firstDispatched on.
	direct [][]task
	// claim holds those row groups instead when every term is order-free
	// (kernel.TermPlan.OrderFree): a worker takes the next one left, so
	// none idles while another still has its share (next counts them out).
	claim           []task
	next            atomic.Int64
	dispatchFrom    int
	firstDispatched int
	// dicts[s] is how many distinct values the last text block parsed
	// held in slot s, and dictBytes[s] their bytes: the next block's
	// dictionary is sized from them (column.DictReserver).
	dicts, dictBytes []atomic.Int32
	// days are the days the workers' text blocks held in each time slot,
	// merged as each worker ends (textDays).
	daysMu sync.Mutex
	days   dayZones
}

// dayZones are the days met in each of a scan's time slots.
type dayZones []column.DayZone

// meet widens slot i's days to z.
func (d *dayZones) meet(i int, z column.DayZone) {
	for len(*d) <= i {
		*d = append(*d, column.DayZone{Min: math.MaxInt32, Max: math.MinInt32})
	}
	(*d)[i].Min, (*d)[i].Max = min((*d)[i].Min, z.Min), max((*d)[i].Max, z.Max)
}

// textDays are the days every record of the table's text parts holds in
// each date or timestamp time slot, for a scan that ended without error
// (Run, every Scan and Close): every record's time fields are parsed,
// before any test of the range (textTask, lateBlock). Nil when the table
// has no text part.
func (fp *fileProducer) textDays() []check.ColumnDays {
	text := false
	for _, sp := range fp.parts {
		text = text || sp.pq == nil
	}
	if !text {
		return nil
	}
	fp.daysMu.Lock()
	defer fp.daysMu.Unlock()
	var out []check.ColumnDays
	for i, s := range fp.timeSlots {
		c := fp.q.Base[s]
		if c.ValidOnly || (c.Type != domain.TypeDate && c.Type != domain.TypeTimestamp) {
			continue
		}
		d := check.Days{Lo: math.MaxInt32, Hi: math.MinInt32}
		if i < len(fp.days) {
			d = check.Days{Lo: fp.days[i].Min, Hi: fp.days[i].Max}
		}
		out = append(out, check.ColumnDays{Name: c.Name, Type: c.Type, Days: d})
	}
	return out
}

// producer returns the batches of the question's base table: its cached
// columns, or a stream of its files.
func (e *Engine) producer(ctx context.Context, q *query, mem *gate.Reservation, m *kernel.Meter) (kernel.Producer, error) {
	if !q.streamed {
		return kernel.NewCachedProducer(&q.Query, q.views[0].Derived, q.views[0].Segs), nil
	}
	fsys := e.cfg.Files
	if m != nil {
		fsys = files.Counting(fsys, &m.Bytes)
	}
	fp := &fileProducer{q: q, mem: mem, fsys: fsys, work: make([]chan task, q.Parallel), blocks: text.NewBlocks(mem, q.Parallel), dicts: make([]atomic.Int32, len(q.Base)), dictBytes: make([]atomic.Int32, len(q.Base)), timeSlots: q.TimeSlots()}
	for _, c := range q.Base {
		fp.names = append(fp.names, c.Name)
	}
	var perWorker int64
	for _, p := range q.tf.Parts {
		sp := &streamPart{p: p, seen: make([]atomic.Bool, len(q.Base))}
		if p.Format == files.FormatParquet {
			e.cache.CountRead()
			pq, err := openParquetPart(ctx, fsys, e.footers, p, q, mem)
			if err != nil {
				fp.closeParts()
				return nil, err
			}
			sp.pq = pq
			perWorker = max(perWorker, pq.workerBytes)
			q.seen.AddRows(pq.md.NumRows)
			q.Rows += int(pq.md.NumRows)
		} else {
			e.cache.CountRead()
			perWorker = max(perWorker, textWorkerBytes(q, p))
			q.Rows += int(p.Size/2 + 1)
		}
		fp.parts = append(fp.parts, sp)
	}
	if err := mem.Grow(int64(q.Parallel) * perWorker); err != nil {
		fp.closeParts()
		return nil, err
	}
	fp.spanDistinct()
	for w := range fp.work {
		fp.work[w] = make(chan task, 2)
	}
	fp.direct = make([][]task, q.Parallel)
	claim := fp.orderFree()
	group := 0
	for _, sp := range fp.parts {
		if sp.pq == nil {
			break
		}
		for rg, ok := range sp.pq.keep {
			if ok && claim {
				fp.claim = append(fp.claim, task{group: group, part: sp, rg: rg})
			} else if ok {
				w := group % q.Parallel
				fp.direct[w] = append(fp.direct[w], task{group: group, part: sp, rg: rg})
			}
			group++
		}
		fp.dispatchFrom++
	}
	fp.firstDispatched = group
	return fp, nil
}

// orderFree reports whether the question's answer is the same whichever
// worker reads which row group: every term is order-free, an integer sum
// only when the statistics of every row group read bound its column so
// that no partial sum can pass int64 (the largest magnitude a row group
// holds times its rows, summed).
func (fp *fileProducer) orderFree() bool {
	bounded := func(slot int) bool {
		for _, sp := range fp.parts {
			if sp.pq == nil || !sp.pq.bounded(slot) {
				return false
			}
		}
		return true
	}
	return fp.q.OrderFree(bounded)
}

// Run numbers the groups of the parts from dispatchFrom on (a text part
// and those after it) and hands them to the workers.
func (fp *fileProducer) Run(ctx context.Context) error {
	defer func() {
		for _, ch := range fp.work {
			close(ch)
		}
	}()
	send := func(t task) error {
		select {
		case fp.work[t.group%len(fp.work)] <- t:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	group := fp.firstDispatched
	for _, sp := range fp.parts[fp.dispatchFrom:] {
		if sp.pq != nil {
			for rg, ok := range sp.pq.keep {
				if ok {
					if err := send(task{group: group, part: sp, rg: rg}); err != nil {
						return err
					}
				}
				group++
			}
			continue
		}
		n, err := fp.rangeText(ctx, sp, group, send)
		if n < 0 {
			n, err = fp.splitText(ctx, sp, group, send)
		}
		group += n
		if err != nil {
			return err
		}
	}
	return nil
}

// Scan decodes (or parses) worker w's groups and aggregates them.
func (fp *fileProducer) Scan(ctx context.Context, w int, each func(*kernel.Batch) error) error {
	var pr parquetReaders
	defer pr.release()
	var fields text.Fields // a text block's wanted fields, reused
	var ranged text.Ranged // a text range's bytes, reused
	if seen := fp.q.seen; seen != nil {
		inner := each
		each = func(b *kernel.Batch) error {
			seen.Batch(b.Cols)
			return inner(b)
		}
	}
	for _, t := range fp.direct[w] {
		if err := fp.parquetTask(ctx, &pr, t, each); err != nil {
			return err
		}
	}
	for i := int(fp.next.Add(1)) - 1; i < len(fp.claim); i = int(fp.next.Add(1)) - 1 {
		if err := fp.parquetTask(ctx, &pr, fp.claim[i], each); err != nil {
			return err
		}
	}
	for {
		var t task
		var ok bool
		select {
		case t, ok = <-fp.work[w]:
		case <-ctx.Done():
			return ctx.Err()
		}
		if !ok {
			fp.daysMu.Lock()
			for i, z := range pr.days {
				fp.days.meet(i, z)
			}
			fp.daysMu.Unlock()
			return nil
		}
		var err error
		switch {
		case t.block != nil:
			err = fp.textTask(ctx, &pr, t, &fields, each)
			fp.blocks.Put(t.block.buf, t.block.spans)
		case t.part.pq == nil:
			err = fp.rangeTask(ctx, &pr, t, &ranged, &fields, each)
		default:
			err = fp.parquetTask(ctx, &pr, t, each)
		}
		if err != nil {
			return err
		}
	}
}

// Close releases the files and reports what only the end of a part can
// tell (an NDJSON column no object holds).
func (fp *fileProducer) Close() error {
	fp.closeParts()
	for _, sp := range fp.parts {
		if sp.p.Format != files.FormatNDJSON || sp.objects.Load() == 0 || sp.narrowed.Load() {
			continue
		}
		for i := range sp.seen {
			if !sp.seen[i].Load() {
				return fmt.Errorf("file %s: column %s is missing (no object holds it)", sp.p.Path, fp.q.Base[i].Name)
			}
		}
	}
	return nil
}

func (fp *fileProducer) closeParts() {
	for _, sp := range fp.parts {
		if sp.pq != nil {
			sp.pq.close()
		}
		if sp.file != nil {
			sp.file.Close()
		}
	}
}

// resolveTypes returns the type of each wanted base column: the declared
// one, or, for a column read for its values without one, the type
// inferred from the whole column (remembered per file identity, so only
// the first question pays for the pass).
func (e *Engine) resolveTypes(ctx context.Context, tf *files.Table, wants []format.Want, m *kernel.Meter) ([]domain.ColumnType, error) {
	out := make([]domain.ColumnType, len(wants))
	var probe []format.Want
	for i, w := range wants {
		out[i] = w.Type
		if w.Type != domain.TypeUnset || w.ValidOnly {
			continue
		}
		if typ, ok := e.cache.InferredType(tf, w.Name); ok {
			out[i] = typ
			continue
		}
		probe = append(probe, w)
	}
	if len(probe) == 0 {
		return out, nil
	}
	fsys := e.cfg.Files
	if m != nil {
		fsys = files.Counting(fsys, &m.Bytes)
	}
	l := format.NewLoader(ctx, fsys, probe, false, nil)
	for i := range l.Builders {
		l.Builders[i] = &column.InferBuilder{Probe: true}
	}
	for _, p := range tf.Parts {
		e.cache.CountRead()
		if err := l.ReadPart(p); err != nil {
			return nil, err
		}
	}
	for j, w := range probe {
		typ := l.Builders[j].(*column.InferBuilder).Inferred()
		e.cache.Infer(tf, w.Name, typ)
		for i := range wants {
			if wants[i] == w {
				out[i] = typ
			}
		}
	}
	return out, nil
}

// spanCodes bounds the span of values a count_distinct codes by offset:
// a bitset of at most spanCodes bits per group.
const spanCodes = 1 << 26

// spanDistinct gives each count_distinct over an integer or date column
// the span of its values, when every row group read has statistics that
// bound them: the values are then coded by offset, not hashed.
func (fp *fileProducer) spanDistinct() {
	q := fp.q
	members := q.Members // a union's, each reading the union's slots
	if len(members) == 0 {
		members = []kernel.Member{{Q: &q.Query}}
	}
	for _, mb := range members {
		for _, mp := range mb.Q.Metrics {
			for _, tp := range mp.Terms {
				slot := tp.Slot
				if mb.Slots != nil {
					slot = mb.Slots[slot]
				}
				if tp.Op != kernel.OpDistinct || tp.Codes != nil || q.inferred[slot] ||
					(tp.Col.Type != domain.TypeInteger && tp.Col.Type != domain.TypeDate) {
					continue
				}
				lo, hi, ok := fp.statsSpan(slot)
				if ok && hi-lo < spanCodes {
					tp.Lo, tp.Base = lo, int32(hi-lo+1)
				}
			}
		}
	}
}

// statsSpan is the smallest and largest value of a slot over the row
// groups the scan reads, from their statistics.
func (fp *fileProducer) statsSpan(slot int) (lo, hi int64, ok bool) {
	lo, hi = math.MaxInt64, math.MinInt64
	for _, sp := range fp.parts {
		if sp.pq == nil {
			return 0, 0, false
		}
		plo, phi, ok := format.StatsSpan(sp.pq.md, sp.pq.leaves[slot], sp.pq.keep)
		if !ok {
			return 0, 0, false
		}
		lo, hi = min(lo, plo), max(hi, phi)
	}
	return lo, hi, lo <= hi
}
