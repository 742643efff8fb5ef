package engine

import (
	"context"
	"fmt"
	"io/fs"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/files"
	"sutura.dev/exec-arrow/internal/footer"
	"sutura.dev/exec-arrow/internal/format"
	"sutura.dev/exec-arrow/internal/gate"
	"sutura.dev/exec-arrow/internal/kernel"
	"sutura.dev/exec-arrow/internal/text"
)

// parquetPart is one Parquet file of a streamed table: its footer, where
// each wanted column lives, and which row groups may hold rows of the
// question's range.
type parquetPart struct {
	p       files.Part
	src     parquet.ReaderAtSeeker
	closeFn func()
	md      *metadata.FileMetaData
	leaves  []int // per slot: the leaf column
	full    []int // the slots read for their values, in leaf order of the record
	keep    []bool
	first   []int64  // per row group: its first row within the file
	zones   []rgZone // per row group: its time column's statistics
	// meets, per row group of a union, holds the members whose range its
	// statistics meet (kernel.Query.MembersMeeting), and need the slots
	// they read (NeedSlots): the others are not opened, and the others'
	// members pick no row of it. Nil, or nil for a row group: every one.
	meets, need [][]bool
	bounds      map[int]bool // per slot: its integer sums bounded (bounded)
	// pageLimit is the largest uncompressed page it may declare.
	pageLimit int64
	// workerBytes estimates what one worker holds to decode a row group:
	// the column chunks it reads and one batch of decoded values.
	workerBytes int64
}

// readBuffer is the buffer a worker reads one column's pages through.
const readBuffer = format.ReadBuffer

// openParquetPart reads the footer of p, finds the wanted columns, and
// skips the row groups whose time-column statistics miss the range, or
// whose statistics of a filter's column say no row passes it.
func openParquetPart(ctx context.Context, fsys fs.FS, fc *footer.Cache, p files.Part, q *query, mem *gate.Reservation) (*parquetPart, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l := &format.Loader{Ctx: ctx, Fsys: fsys, Meter: func(n int64) error { return mem.Grow(n) }}
	src, closer, err := l.ParquetSource(p)
	if err != nil {
		return nil, err
	}
	limit, err := format.PageLimit(src)
	if err != nil {
		closer()
		return nil, fmt.Errorf("file %s: %w", p.Path, err)
	}
	md, err := fc.Read(src, p.Path)
	if err != nil {
		closer()
		return nil, fmt.Errorf("file %s: not a Parquet file: %w", p.Path, err)
	}
	pp := &parquetPart{p: p, src: src, closeFn: closer, md: md, pageLimit: limit}
	if err := format.CheckRows(p.Path, pp.md); err != nil {
		pp.close()
		return nil, err
	}
	sch := pp.md.Schema
	for s, c := range q.Base {
		idx := sch.ColumnIndexByName(c.Name)
		if idx < 0 {
			pp.close()
			return nil, fmt.Errorf("file %s: column %s is missing", p.Path, c.Name)
		}
		pp.leaves = append(pp.leaves, idx)
		if !c.ValidOnly {
			pp.full = append(pp.full, s)
		}
	}
	nrg := pp.md.NumRowGroups()
	pp.keep = make([]bool, nrg)
	pp.first = make([]int64, nrg)
	pp.zones = make([]rgZone, nrg)
	var row, maxRows int64
	maxChunk := make([]int64, len(q.Base))
	for rg := 0; rg < nrg; rg++ {
		rgm := pp.md.RowGroup(rg)
		pp.first[rg] = row
		row += rgm.NumRows()
		var meets bool
		var members []bool
		pp.zones[rg], meets, members = q.rowGroupMeets(rgm, pp.leaves, sch)
		if members != nil {
			if pp.need == nil {
				pp.meets, pp.need = make([][]bool, nrg), make([][]bool, nrg)
			}
			pp.meets[rg], pp.need[rg] = members, q.NeedSlots(members, nil)
		}
		pp.keep[rg] = meets &&
			q.MayCount(func(s int) (column.ChunkStats, bool) {
				return format.ChunkStats(rgm, pp.leaves[s], sch.Column(pp.leaves[s]), q.Base[s].Type)
			})
		if !pp.keep[rg] {
			continue
		}
		maxRows = max(maxRows, min(rgm.NumRows(), column.ChunkRows))
		for s, leaf := range pp.leaves {
			if cc, err := rgm.ColumnChunk(leaf); err == nil {
				// Pages are read through a buffer of readBuffer bytes and
				// decompressed one at a time.
				maxChunk[s] = max(maxChunk[s], min(cc.TotalCompressedSize(), readBuffer)+min(cc.TotalUncompressedSize(), 1<<20))
			}
		}
	}
	for s, c := range q.Base {
		pp.workerBytes += maxChunk[s]
		if c.ValidOnly {
			pp.workerBytes += maxRows * 3
		} else {
			pp.workerBytes += maxRows * 12
		}
	}
	return pp, nil
}

func (pp *parquetPart) close() {
	if pp.closeFn != nil {
		pp.closeFn()
		pp.closeFn = nil
	}
}

// bounded reports whether the statistics of every row group pp reads
// bound the magnitude of slot's integers so that their sum, in any order,
// stays within int64; it is computed once per part and slot.
func (pp *parquetPart) bounded(slot int) bool {
	if b, ok := pp.bounds[slot]; ok {
		return b
	}
	total, b := int64(0), true
	sch := pp.md.Schema
	for rg, keep := range pp.keep {
		if !keep || !b {
			continue
		}
		rgm := pp.md.RowGroup(rg)
		st, ok := format.ChunkStats(rgm, pp.leaves[slot], sch.Column(pp.leaves[slot]), domain.TypeInteger)
		m := max(st.ILo, -st.ILo, st.IHi, -st.IHi)
		if n := rgm.NumRows(); !ok || st.Text || st.ILo == math.MinInt64 || m > 0 && n > (math.MaxInt64-total)/m {
			b = false
		} else {
			total += m * n
		}
	}
	if pp.bounds == nil {
		pp.bounds = map[int]bool{}
	}
	pp.bounds[slot] = b
	return b
}

// rgZone is what a row group's time-column statistics say: its days (when
// ok) and whether it may hold a null. They are decoded once per row group
// and question (arrow-go re-encodes statistics on every decode: 40 µs a
// row group, 32 ms of serial time at 814 row groups).
type rgZone struct {
	z         column.DayZone
	ok, nulls bool
}

// rowGroupMeets reports whether a row group may hold a row of the range,
// from the statistics of its time columns (a union's members may each
// read their own: kernel.Query.MeetsAt), and what those of TimeSlot say:
// a row group whose days all fall outside the range, or whose time column
// is all null, holds none. For a union it gives which members' ranges
// the row group meets, nil when every one's does (MembersMeeting).
func (q *query) rowGroupMeets(rgm *metadata.RowGroupMetaData, leaves []int, sch *schema.Schema) (rgZone, bool, []bool) {
	zones := make(map[int]rgZone, 1)
	for _, s := range q.TimeSlots() {
		zones[s] = timeZone(rgm, leaves[s], sch.Column(leaves[s]))
	}
	zone := func(s int) (column.DayZone, bool) {
		rz := zones[s]
		return rz.z, rz.ok
	}
	if !q.MeetsAt(zone) {
		return zones[q.TimeSlot], false, nil
	}
	return zones[q.TimeSlot], true, q.MembersMeeting(zone, nil)
}

// timeZone is what the statistics of a row group's time column say: not
// ok when they say nothing, an empty zone when the column is all null.
func timeZone(rgm *metadata.RowGroupMetaData, leaf int, descr *schema.Column) rgZone {
	cc, err := rgm.ColumnChunk(leaf)
	if err != nil {
		return rgZone{}
	}
	st, err := cc.Statistics()
	if err != nil || st == nil {
		return rgZone{}
	}
	if st.HasNullCount() && st.NullCount() >= rgm.NumRows() {
		return rgZone{z: column.DayZone{Min: 1, Max: 0}, ok: true, nulls: true}
	}
	var rz rgZone
	rz.z, rz.nulls, rz.ok = format.ZoneOf(st, descr)
	return rz
}

// parquetReaders are one worker's readers of the table's Parquet parts,
// opened on its first row group of each, and the buffers its PageChunks
// decode into (per slot; a batch's columns are done with when the next
// batch is decoded). Its selector and keep buffer serve the worker's text
// blocks too (textTask).
type parquetReaders struct {
	files    map[*parquetPart]*pqarrow.FileReader
	bufs     []format.DictBuffers
	noSelect bool // selecting rows first did not pay (see parquetTask)
	// sel selects the rows of the worker's batches, kept across its row
	// groups (with the pass rates that order its tests); nil until used.
	sel  *kernel.Selector
	keep []byte    // a batch's selected rows (reused: fresh memory faults on first touch)
	late text.Late // CSV blocks narrowed to the records in the range (lateBlock)
	// lateTimes build the time columns late's test reads (per slot of
	// TimeSlots), reset and reused block after block (their memory is
	// held in late's share of the working set).
	lateTimes  []text.TimeBuilder
	lateObject *text.Object // reads an NDJSON line's time members alone
	// zoneTried and zonePaid count the batches checked against the range
	// by their time columns' zones, and those it skipped or, in a union,
	// read without the columns of a member it left out.
	zoneTried, zonePaid int
	// meets and need are a union's batch's members that may count a row
	// of it and the slots they read (kernel.Query.MembersMeeting,
	// NeedSlots), reused batch after batch.
	meets, need []bool
	// days are the days the worker's text blocks held in each time slot
	// (by position in fileProducer.timeSlots), every record's.
	days dayZones
	// blocks[s] builds slot s's column of the worker's text blocks, reset
	// and reused block after block when it can be (column.Resetter): a
	// block's columns are dropped once the kernels have read them, and
	// fresh memory faults on first touch.
	blocks []column.Builder
}

// blockBuilder returns an empty builder for slot s (whose prototype is
// proto) of the worker's next text block: the last block's, reset, when
// it can be.
func (pr *parquetReaders) blockBuilder(s int, proto *column.Column) column.Builder {
	if s < len(pr.blocks) && pr.blocks[s] != nil {
		pr.blocks[s].(column.Resetter).Reset()
		return pr.blocks[s]
	}
	bl := column.NewBuilderSpec(proto.Type, proto.Spec, false)
	if _, ok := bl.(column.Resetter); ok {
		for len(pr.blocks) <= s {
			pr.blocks = append(pr.blocks, nil)
		}
		pr.blocks[s] = bl
	}
	return bl
}

// zonesOnce is the zone of each time column of a batch of n rows (cols),
// for MeetsAt: a union asks each member's in turn, most of them the same
// column, which is then scanned once (twelve anchors over one table each
// scanned it again: 5% of a one-shot question's CPU).
func zonesOnce(cols []*column.Column, n int) func(s int) (column.DayZone, bool) {
	var slots []int
	var zones []column.DayZone
	return func(s int) (column.DayZone, bool) {
		for i, t := range slots {
			if t == s {
				return zones[i], true
			}
		}
		z := column.ZoneOf(cols[s], 0, n)
		slots, zones = append(slots, s), append(zones, z)
		return z, true
	}
}

// zoneTries is how many batches a worker checks by their zone before it
// stops, when none was skipped (times in no order meet every range).
const zoneTries = 16

// release gives back the worker's selector.
func (pr *parquetReaders) release() {
	if pr.sel != nil {
		pr.sel.Release()
		pr.sel = nil
	}
}

func (pr *parquetReaders) get(pp *parquetPart, q *query) (*pqarrow.FileReader, error) {
	if fr := pr.files[pp]; fr != nil {
		return fr, nil
	}
	// Pages are read through a small buffer into pooled memory, not a
	// whole column chunk at a time into fresh memory.
	rp := parquet.NewReaderProperties(format.DecodePool)
	rp.BufferedStreamEnabled, rp.BufferSize = true, readBuffer
	rp.MaxUncompressedPageSize = pp.pageLimit
	pf, err := file.NewParquetReader(pp.src, file.WithMetadata(pp.md), file.WithReadProps(rp))
	if err != nil {
		return nil, fmt.Errorf("file %s: %w", pp.p.Path, err)
	}
	props := pqarrow.ArrowReadProperties{BatchSize: column.ChunkRows}
	for _, s := range pp.full {
		if q.Base[s].Type == domain.TypeText && pp.md.Schema.Column(pp.leaves[s]).PhysicalType() == parquet.Types.ByteArray {
			props.SetReadDict(pp.leaves[s], true)
		}
	}
	fr, err := pqarrow.NewFileReader(pf, props, format.DecodePool)
	if err != nil {
		return nil, fmt.Errorf("file %s: %w", pp.p.Path, err)
	}
	if pr.files == nil {
		pr.files = map[*parquetPart]*pqarrow.FileReader{}
	}
	pr.files[pp] = fr
	return fr, nil
}

// parquetTask decodes one row group, batch by batch, and hands each batch
// that may hold a row of the range to each. Columns read for validity
// alone are read from their definition levels (and, for text, the value
// lengths: empty text is null), or not at all when the footer says the
// row group has no null. The time column is decoded first, then (late
// materialisation) the filters' columns, while they find few rows that
// may count: a batch with none skips the other columns, and the PLAIN
// texts of the rows that cannot count are not copied.
func (fp *fileProducer) parquetTask(ctx context.Context, pr *parquetReaders, t task, each func(*kernel.Batch) error) error {
	q, pp := fp.q, t.part.pq
	fr, err := pr.get(pp, q)
	if err != nil {
		return err
	}
	rgm := pp.md.RowGroup(t.rg)
	nrows := int(rgm.NumRows())
	// A row group whose statistics put every time in one bucket of the
	// range does not read the time column, unless something else does.
	bucket, one := int32(0), false
	full := pp.full
	rz := pp.zones[t.rg]
	if q.timeOnly && rz.ok && !rz.nulls {
		if bucket, one = q.OneBucket(rz.z); one {
			full = slices.DeleteFunc(slices.Clone(full), func(s int) bool { return s == q.TimeSlot })
		}
	}
	// A row group whose statistics put every time in the range needs no
	// batch checked against it.
	inside := rz.ok && rz.z.Min >= q.Start && rz.z.Max < q.Start+q.Span
	// A union's columns that only members whose range the row group's
	// statistics miss read are not opened.
	var rgMeets, rgNeed []bool
	if pp.need != nil && pp.need[t.rg] != nil {
		rgMeets, rgNeed = pp.meets[t.rg], pp.need[t.rg]
		full = slices.DeleteFunc(slices.Clone(full), func(s int) bool { return !rgNeed[s] })
	}
	g, err := format.OpenRowGroup(ctx, fr, format.RowGroupSpec{Path: pp.p.Path, RG: t.rg, First: int(pp.first[t.rg]),
		Leaves: pp.leaves, Protos: q.Base, Full: full, Need: rgNeed, Inferred: q.inferred, Bufs: &pr.bufs, Src: pp.src, Limit: pp.pageLimit})
	if err != nil {
		return err
	}
	defer g.Close()
	var need []bool // this batch's slots read by a member that may count (nil: all)
	read := func(s int) bool {
		return (q.Base[s].ValidOnly && (rgNeed == nil || rgNeed[s]) || slices.Contains(full, s)) && (need == nil || need[s])
	}
	// Selecting pays while it finds batches with no row that may count,
	// or leaves out most of the texts of a column read from its pages; a
	// worker stops once it did neither.
	selecting := !pr.noSelect && (!inside || len(q.BaseFilters)+len(q.Required) > 0)
	texts := false
	for s := range q.Base {
		texts = texts || read(s) && g.Text(s) && !slices.Contains(q.SelectSlots(), s)
	}
	for off := 0; off < nrows; {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := g.Start(ctx, min(column.ChunkRows, nrows-off))
		if err != nil {
			return err
		}
		off += n
		cols := make([]*column.Column, len(q.Base))
		b := &kernel.Batch{Lo: 0, Hi: n, Group: t.group, Cols: cols, OneBucket: one, Bucket: bucket}
		// The members the row group's statistics rule out pick no row of
		// any of its batches (their columns are not opened), whether or
		// not the batch's own zones are checked.
		b.Meets, need = rgMeets, rgNeed
		if !one {
			for _, s := range fp.timeSlots {
				if cols[s], err = g.Column(s, nil); err != nil {
					return err
				}
			}
			// A batch outside the range is skipped without the rest, and a
			// union's batch read without the columns only members whose
			// range it is outside read, while checking its zones has paid
			// on this worker.
			if !inside && (pr.zonePaid > 0 || pr.zoneTried < zoneTries) {
				pr.zoneTried++
				b.Zone = zonesOnce(cols, n)
				if !q.MeetsAt(b.Zone) {
					pr.zonePaid++
					if err := g.Finish(); err != nil {
						return err
					}
					continue
				}
				if m := q.MembersMeeting(b.Zone, pr.meets); m != nil {
					for i := range m {
						m[i] = m[i] && (rgMeets == nil || rgMeets[i])
					}
					pr.meets, pr.zonePaid = m, pr.zonePaid+1
					b.Meets, need = m, q.NeedSlots(m, pr.need)
					pr.need = need
				}
			}
		}
		var keep []byte
		if selecting {
			if pr.sel == nil {
				pr.sel = q.NewSelector()
			}
			for _, s := range q.SelectSlots() {
				if cols[s] == nil && read(s) {
					if cols[s], err = g.Column(s, nil); err != nil {
						return err
					}
				}
			}
			rows := pr.sel.Rows(b)
			if len(rows) == 0 {
				if err := g.Finish(); err != nil {
					return err
				}
				continue
			}
			if selecting = texts && len(rows) < n/4; !selecting {
				pr.noSelect = true
			}
			pr.keep = append(pr.keep[:0], make([]byte, (n+7)/8)...)
			keep = pr.keep
			for _, r := range rows {
				keep[r>>3] |= 1 << (r & 7)
			}
		}
		for s := range q.Base {
			if cols[s] == nil && read(s) {
				if cols[s], err = g.Column(s, keep); err != nil {
					return err
				}
			}
		}
		if err := g.Finish(); err != nil {
			return err
		}
		if err := each(b); err != nil {
			return err
		}
	}
	return nil
}
