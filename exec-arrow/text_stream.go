package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/files"
	"sutura.dev/exec-arrow/internal/format"
	"sutura.dev/exec-arrow/internal/kernel"
	"sutura.dev/exec-arrow/internal/text"
)

// textBlock is a run of records of a CSV or NDJSON part, cut at record
// boundaries by the dispatcher (splitText) or, in a range, by the worker
// that read it (rangeTask): record i is buf[spans[2i]:spans[2i+1]],
// without its line end.
type textBlock struct {
	buf   []byte
	spans []int32
	// CSV: the field of each slot, the number of fields a record has, and
	// whether a record may hold a quote (false: none does).
	at      []int
	nfields int
	quoted  bool
}

// textWorkerBytes estimates what one worker holds to parse a block of p
// besides the block itself (whose buffer is accounted as it is made): the
// fields and the batch it builds (a record takes at least two bytes, so a
// small file bounds them).
func textWorkerBytes(q *query, p files.Part) int64 {
	rows := min(column.ChunkRows, p.Size/2+1)
	return int64(len(q.Base)) * rows * 28
}

// splitText reads a CSV or NDJSON part, cuts it into blocks of chunkRows
// records and sends block g to worker g mod P; it returns how many blocks
// it sent. Blank lines are not records.
func (fp *fileProducer) splitText(ctx context.Context, sp *streamPart, first int, send func(task) error) (int, error) {
	rc, err := files.OpenPart(fp.fsys, sp.p)
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	buf, err := fp.blocks.Buffer()
	if err != nil {
		return 0, err
	}
	s := &text.Splitter{Mem: fp.mem, Reader: rc, CSV: sp.p.Format == files.FormatCSV, Buf: buf}
	var at []int
	nfields := 0
	if s.CSV {
		if at, nfields, err = fp.csvHeader(ctx, sp, s); err != nil {
			return 0, err
		}
	}
	blocks := 0
	for more := true; more; {
		if err := ctx.Err(); err != nil {
			return blocks, err
		}
		spans, err := fp.blocks.Spans()
		if err != nil {
			return blocks, err
		}
		if spans, more, err = s.Block(spans, column.ChunkRows); err != nil {
			return blocks, fmt.Errorf("file %s: %w", sp.p.Path, err)
		} else if len(spans) == 0 {
			fp.blocks.Put(nil, spans)
			break
		}
		fp.q.seen.AddRows(int64(len(spans) / 2))
		b := &textBlock{spans: spans, at: at, nfields: nfields, quoted: s.Quoted}
		fresh, err := fp.blocks.Buffer()
		if err != nil {
			return blocks, err
		}
		b.buf = s.Cut(fresh)
		fp.blocks.Grew(cap(b.buf))
		if err := send(task{group: first + blocks, part: sp, block: b}); err != nil {
			return blocks, err
		}
		blocks++
	}
	return blocks, nil
}

// rangeText hands an uncompressed CSV or NDJSON part to the workers in
// ranges of rangeBytes, one group each, when it holds two ranges a worker
// and its file allows positioned reads: each worker reads and splits its own ranges (rangeTask), so the
// read's copy and the search for record ends are not one goroutine's work
// for all (docs/performance.md, "CSV read in ranges"). A CSV part's header
// is read first; a CSV range learns whether it starts inside a quoted
// field from the quotes of the ranges before it (text.Quotes). It returns
// -1 for a part splitText is to read.
func (fp *fileProducer) rangeText(ctx context.Context, sp *streamPart, first int, send func(task) error) (int, error) {
	if sp.p.Codec != files.CodecNone || sp.p.Size < int64(2*len(fp.work))*rangeBytes {
		return -1, nil // fewer ranges than two a worker leave a worker idle
	}
	f, err := fp.fsys.Open(sp.p.Path)
	if err != nil {
		return 0, fmt.Errorf("file %s: %w", sp.p.Path, err)
	}
	st, err := f.Stat()
	ra, ok := f.(io.ReaderAt)
	if ok && err == nil {
		if _, err = ra.ReadAt(nil, 0); errors.Is(err, io.EOF) { // a wrapper may offer ReadAt without it
			err = nil
		}
	}
	if !ok || err != nil {
		f.Close()
		return -1, nil
	}
	sp.file, sp.size = f, st.Size()
	if sp.p.Format == files.FormatCSV {
		buf, err := fp.blocks.Buffer()
		if err != nil {
			return 0, err
		}
		s := &text.Splitter{Mem: fp.mem, Reader: io.NewSectionReader(ra, 0, sp.size), CSV: true, Buf: buf}
		sp.at, sp.nfields, err = fp.csvHeader(ctx, sp, s)
		fp.blocks.Put(s.Buf, nil)
		if err != nil {
			return 0, err
		}
		sp.base = int64(s.Start)
		sp.quotes = text.NewQuotes(int((sp.size - sp.base + rangeBytes - 1) / rangeBytes))
	}
	groups := 0
	for lo := sp.base; lo < sp.size; lo += rangeBytes {
		if err := send(task{group: first + groups, part: sp, lo: lo, hi: min(lo+rangeBytes, sp.size)}); err != nil {
			return groups, err
		}
		groups++
	}
	return groups, nil
}

// rangeBytes is the size of a text range: a block of column.ChunkRows
// records of 128 bytes, fewer of longer ones. Tests make it small.
var rangeBytes int64 = 8 << 20

// rangeTask reads the records of t's range and parses them block by
// block, as textTask parses a block the dispatcher cut.
func (fp *fileProducer) rangeTask(ctx context.Context, pr *parquetReaders, t task, r *text.Ranged, fields *text.Fields, each func(*kernel.Batch) error) error {
	sp := t.part
	r.Src, r.Size, r.Mem = sp.file.(io.ReaderAt), sp.size, fp.mem
	csv := sp.p.Format == files.FormatCSV
	var buf []byte
	var err error
	quoted := true // an NDJSON splitter looks for no quote anyway
	if csv {
		i := int((t.lo - sp.base) / rangeBytes)
		buf, quoted, err = r.ReadCSV(t.lo, t.hi, sp.base, func(odd bool) (bool, error) { return sp.quotes.Link(ctx, i, odd) })
	} else {
		buf, err = r.Read(t.lo, t.hi)
	}
	if err != nil {
		return fmt.Errorf("file %s: %w", sp.p.Path, err)
	}
	spans, err := fp.blocks.Spans()
	if err != nil {
		return err
	}
	defer func() { fp.blocks.Put(nil, spans) }()
	var s text.Splitter
	s.Reset(buf, csv, quoted)
	for more := true; more; {
		if err := ctx.Err(); err != nil {
			return err
		}
		if spans, more, err = s.Block(spans[:0], column.ChunkRows); err != nil || len(spans) == 0 {
			return err
		}
		fp.q.seen.AddRows(int64(len(spans) / 2))
		b := &textBlock{buf: buf, spans: spans, at: sp.at, nfields: sp.nfields, quoted: s.Quoted}
		s.Quoted = false
		if err := fp.textTask(ctx, pr, task{group: t.group, part: sp, block: b}, fields, each); err != nil {
			return err
		}
	}
	return nil
}

// csvHeader reads the header record (after a byte-order mark) and finds
// the field of every wanted column.
func (fp *fileProducer) csvHeader(ctx context.Context, sp *streamPart, s *text.Splitter) ([]int, int, error) {
	header, bad, err := s.Header()
	if err != nil {
		return nil, 0, fmt.Errorf("file %s: %w", sp.p.Path, err)
	}
	if bad != nil {
		return nil, 0, fp.exactError(ctx, sp, bad)
	}
	pos := map[string]int{}
	for i, h := range header {
		if _, dup := pos[h]; dup {
			return nil, 0, fp.exactError(ctx, sp, text.ErrFastPath)
		}
		pos[h] = i
	}
	at := make([]int, len(fp.q.Base))
	for i, c := range fp.q.Base {
		j, ok := pos[c.Name]
		if !ok {
			return nil, 0, fp.exactError(ctx, sp, text.ErrFastPath)
		}
		at[i] = j
	}
	return at, len(header), nil
}

// exactError reads the part with the reference reader, whose error names
// the file, column and line exactly as a load would; the streaming
// reader's own error stands only when the reference reader finds none.
func (fp *fileProducer) exactError(ctx context.Context, sp *streamPart, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	} else if errors.As(err, new(*domain.RefusalError)) { // the working set, not the file
		return err
	}
	wants := make([]format.Want, len(fp.q.Base))
	for i, c := range fp.q.Base {
		wants[i] = format.Want{Name: c.Name, Type: c.Type, Spec: c.Spec, ValidOnly: c.ValidOnly}
	}
	l := format.NewLoader(ctx, fp.fsys, wants, true, nil)
	if rerr := l.ReadPart(sp.p); rerr != nil {
		return rerr
	}
	return fmt.Errorf("file %s: %w", sp.p.Path, err)
}

// textTask parses one block into a batch and hands it to each when it may
// hold a row of the range. The time columns are parsed first: a block
// outside the range is not parsed further. Then (late materialisation)
// the columns of the filters are parsed and the rows that may count are
// selected (pr's selector); the other columns are parsed only for those
// rows, the rest left null, as a Parquet batch leaves them out.
func (fp *fileProducer) textTask(ctx context.Context, pr *parquetReaders, t task, fields *text.Fields, each func(*kernel.Batch) error) error {
	q := fp.q
	b, err := fp.lateBlock(pr, t)
	if err != nil {
		return fp.exactError(ctx, t.part, err)
	} else if b == nil {
		return nil // no record in the range
	}
	n := len(b.spans) / 2
	only := make([]bool, len(q.Base))
	for s, c := range q.Base {
		only[s] = c.ValidOnly
	}
	fields.Copy = t.part.p.Format == files.FormatNDJSON
	fields.Reset(n, only)
	if t.part.p.Format == files.FormatCSV {
		err = text.CSVBlock(b.buf, b.spans, b.at, b.nfields, b.quoted, fields)
	} else if err = format.NDJSONBlock(b.buf, b.spans, fp.names, t.part.seen, fields); err == nil {
		t.part.objects.Add(int64(len(b.spans) / 2))
	}
	if err != nil {
		return fp.exactError(ctx, t.part, err)
	}
	if grown := fields.Copied() - fields.Held; grown > 0 {
		if err := fp.mem.Grow(grown); err != nil {
			return err
		}
		fields.Held += grown
	}
	cols := make([]*column.Column, len(q.Base))
	var keep []byte // when set, the rows whose other columns are parsed
	build := func(s int) error {
		proto := q.Base[s]
		if proto.ValidOnly {
			cols[s] = &column.Column{Name: proto.Name, Type: proto.Type, N: n, Valid: text.ValidFromText(fields.Column(s)), ValidOnly: true, ID: column.ColumnIDs.Add(1)}
			return nil
		}
		bl := pr.blockBuilder(s, proto)
		if r, ok := bl.(column.Reserver); ok {
			r.Reserve(n)
		}
		if r, ok := bl.(column.DictReserver); ok {
			r.ReserveDict(min(int(fp.dicts[s].Load()), n), int(fp.dictBytes[s].Load()))
		}
		if err := column.AppendTexts(bl, fields.Column(s), keep); err != nil {
			return err
		}
		cols[s] = format.WithID(bl.Finish(proto.Name))
		if d := cols[s].Dict; d != nil {
			fp.dicts[s].Store(int32(len(d)))
			fp.dictBytes[s].Store(int32(cols[s].DictBytes()))
		}
		return nil
	}
	for _, s := range fp.timeSlots {
		if err := build(s); err != nil {
			return fp.exactError(ctx, t.part, err)
		}
	}
	zone := zonesOnce(cols, n)
	for i, s := range fp.timeSlots {
		z, _ := zone(s)
		pr.days.meet(i, z)
	}
	if !q.MeetsAt(zone) {
		return nil
	}
	batch := &kernel.Batch{Lo: 0, Hi: n, Group: t.group, Cols: cols, Zone: zone}
	// A union's members whose range the block is outside read nothing of
	// it: the columns only they read are not parsed.
	batch.Meets = q.MembersMeeting(zone, pr.meets)
	need := q.NeedSlots(batch.Meets, pr.need)
	if batch.Meets != nil {
		pr.meets, pr.need = batch.Meets, need
	}
	needed := func(s int) bool { return cols[s] == nil && (need == nil || need[s]) }
	if sel := q.SelectSlots(); selectsText(q, sel) {
		for _, s := range sel {
			if needed(s) {
				if err := build(s); err != nil {
					return fp.exactError(ctx, t.part, err)
				}
			}
		}
		if pr.sel == nil {
			pr.sel = q.NewSelector()
		}
		rows := pr.sel.Rows(batch)
		if len(rows) == 0 {
			return nil
		}
		if len(rows) < n {
			pr.keep = append(pr.keep[:0], make([]byte, (n+7)/8)...)
			keep = pr.keep
			for _, r := range rows {
				keep[r>>3] |= 1 << (r & 7)
			}
		}
	}
	for s := range q.Base {
		if needed(s) {
			if err := build(s); err != nil {
				return fp.exactError(ctx, t.part, err)
			}
		}
	}
	return each(batch)
}

// lateBlock is t's block, or, for a CSV block read for a field after the
// time fields or an NDJSON block read for a member besides the times, its
// records in the range when they are few (text.Late): textTask then
// splits or decodes them alone. Nil when none is.
func (fp *fileProducer) lateBlock(pr *parquetReaders, t task) (*textBlock, error) {
	q, b, ts := fp.q, t.block, fp.timeSlots
	csv := t.part.p.Format == files.FormatCSV
	var timeAt []int // the time fields, of a CSV block
	if csv {
		for _, s := range ts {
			timeAt = append(timeAt, b.at[s])
		}
	}
	if csv && slices.Max(b.at) <= slices.Max(timeAt) || !csv && len(q.Base) == len(ts) {
		return b, nil
	}
	if pr.lateTimes == nil {
		for _, s := range ts {
			bl, ok := column.NewBuilderSpec(q.Base[s].Type, q.Base[s].Spec, false).(text.TimeBuilder)
			if !ok {
				pr.lateTimes = nil
				return b, nil
			}
			pr.lateTimes = append(pr.lateTimes, bl)
		}
	}
	inRange := func(keep []byte) (int, error) {
		cols := make([]*column.Column, len(ts))
		for i, s := range ts {
			cols[i] = pr.lateTimes[i].Finish(q.Base[s].Name)
			pr.days.meet(i, column.ZoneOf(cols[i], 0, cols[i].N))
		}
		return q.InRange(func(s int) *column.Column { return cols[slices.Index(ts, s)] }, keep), nil
	}
	var spans []int32
	var err error
	if csv {
		spans, err = pr.late.Narrow(fp.mem, b.buf, b.spans, timeAt, b.nfields, b.quoted, pr.lateTimes, inRange)
	} else {
		if pr.lateObject == nil {
			names := make([]string, len(ts))
			for i, s := range ts {
				names[i] = q.Base[s].Name
			}
			pr.lateObject = text.NewObject(names)
		}
		if spans, err = pr.late.NarrowNDJSON(fp.mem, b.buf, b.spans, pr.lateObject, pr.lateTimes, inRange); len(spans) < len(b.spans) {
			t.part.narrowed.Store(true) // some object is not read: none may hold a column
		}
	}
	if spans == nil || err != nil {
		return nil, err
	}
	return &textBlock{buf: b.buf, spans: spans, at: b.at, nfields: b.nfields, quoted: b.quoted}, nil
}

// selectsText reports whether a text block's rows are selected before its
// columns are parsed: when some column is parsed that the selection (which
// reads the slots sel) does not read. Selecting costs nothing else: the
// aggregation starts from the rows selected instead of selecting them
// itself.
func selectsText(q *query, sel []int) bool {
	for s, c := range q.Base {
		if !c.ValidOnly && !slices.Contains(sel, s) {
			return true
		}
	}
	return false
}
