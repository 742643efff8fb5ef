package engine

import (
	"context"
	"fmt"
	"io/fs"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/files"
	"sutura.dev/exec-arrow/internal/format"
	"sutura.dev/exec-arrow/internal/kernel"
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
	first   []int64 // per row group: its first row within the file
	// pageLimit is the largest uncompressed page it may declare.
	pageLimit int64
	// workerBytes estimates what one worker holds to decode a row group:
	// the column chunks it reads and one batch of decoded values.
	workerBytes int64
}

// readBuffer is the buffer a worker reads one column's pages through.
const readBuffer = 256 << 10

// openParquetPart reads the footer of p, finds the wanted columns, and
// skips the row groups whose time-column statistics miss the range.
func openParquetPart(ctx context.Context, fsys fs.FS, p files.Part, q *query, mem *kernel.Reservation) (*parquetPart, error) {
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
	pf, err := file.NewParquetReader(src)
	if err != nil {
		closer()
		return nil, fmt.Errorf("file %s: not a Parquet file: %w", p.Path, err)
	}
	pp := &parquetPart{p: p, src: src, closeFn: closer, md: pf.MetaData(), pageLimit: limit}
	if err := format.CheckRows(p.Path, pp.md); err != nil {
		pp.close()
		return nil, err
	}
	sch := pp.md.Schema
	for _, c := range q.Base {
		idx := sch.ColumnIndexByName(c.Name)
		if idx < 0 {
			pp.close()
			return nil, fmt.Errorf("file %s: column %s is missing", p.Path, c.Name)
		}
		pp.leaves = append(pp.leaves, idx)
	}
	for s, c := range q.Base {
		if !c.ValidOnly {
			pp.full = append(pp.full, s)
		}
	}
	nrg := pp.md.NumRowGroups()
	pp.keep = make([]bool, nrg)
	pp.first = make([]int64, nrg)
	var row, maxRows int64
	maxChunk := make([]int64, len(q.Base))
	for rg := 0; rg < nrg; rg++ {
		rgm := pp.md.RowGroup(rg)
		pp.first[rg] = row
		row += rgm.NumRows()
		pp.keep[rg] = q.rowGroupMeets(rgm, pp.leaves[q.TimeSlot], sch.Column(pp.leaves[q.TimeSlot]))
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

// rowGroupMeets reports whether a row group may hold a row of the range,
// from the statistics of its time column: a row group whose days all fall
// outside the range, or whose time column is all null, holds none.
func (q *query) rowGroupMeets(rgm *metadata.RowGroupMetaData, leaf int, descr *schema.Column) bool {
	cc, err := rgm.ColumnChunk(leaf)
	if err != nil {
		return true
	}
	if st, err := cc.Statistics(); err == nil && st != nil && st.HasNullCount() && st.NullCount() >= rgm.NumRows() {
		return false
	}
	z, ok := format.StatsZone(rgm, leaf, descr, false)
	return !ok || q.Meets(z)
}

// parquetReaders are one worker's readers of the table's Parquet parts,
// opened on its first row group of each, and the buffers its dictChunks
// decode into (per slot; a batch's columns are done with when the next
// batch is decoded).
type parquetReaders struct {
	files map[*parquetPart]*pqarrow.FileReader
	bufs  []format.DictBuffers
}

// buffers returns slot s's buffers for a column of type typ, each at
// least n long.
func (pr *parquetReaders) buffers(s, n int, typ domain.ColumnType) format.DictBuffers {
	for len(pr.bufs) <= s {
		pr.bufs = append(pr.bufs, format.DictBuffers{})
	}
	pr.bufs[s] = pr.bufs[s].Grow(n, typ)
	return pr.bufs[s]
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
// row group has no null.
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
	if q.timeOnly {
		if z, ok := format.StatsZone(rgm, pp.leaves[q.TimeSlot], pp.md.Schema.Column(pp.leaves[q.TimeSlot]), true); ok {
			if bucket, one = q.OneBucket(z); one {
				full = slices.DeleteFunc(slices.Clone(full), func(s int) bool { return s == q.TimeSlot })
			}
		}
	}
	// A row group whose statistics put every time in the range needs no
	// batch checked against it.
	inside := false
	if z, ok := format.StatsZone(rgm, pp.leaves[q.TimeSlot], pp.md.Schema.Column(pp.leaves[q.TimeSlot]), false); ok {
		inside = z.Min >= q.Start && z.Max < q.Start+q.Span
	}
	// Flat columns of PLAIN and dictionary pages are decoded straight
	// from their pages; the others through pqarrow.
	own := make([]*format.PageChunk, len(q.Base))
	rest := full
	for _, s := range full {
		c := q.Base[s]
		descr := pp.md.Schema.Column(pp.leaves[s])
		if q.inferred[s] || !format.PageEligible(rgm, pp.leaves[s], descr, c) {
			continue
		}
		d, err := format.NewPageChunk(fr.ParquetReader().RowGroup(t.rg), pp.leaves[s], descr, c)
		if err != nil {
			return fmt.Errorf("file %s, row group %d, column %s: %w", pp.p.Path, t.rg, c.Name, err)
		}
		defer d.Close()
		own[s] = d
		rest = slices.DeleteFunc(slices.Clone(rest), func(r int) bool { return r == s })
	}
	recCol := make([]int, len(q.Base)) // slot → column of the record
	var rr pqarrow.RecordReader
	if len(rest) > 0 {
		leaves := make([]int, len(rest))
		for i, s := range rest {
			leaves[i] = pp.leaves[s]
			recCol[s] = i
		}
		if rr, err = fr.GetRecordReader(ctx, leaves, []int{t.rg}); err != nil {
			return fmt.Errorf("file %s, row group %d: %w", pp.p.Path, t.rg, err)
		}
		defer rr.Release()
	}
	valids := make([]*format.ValidReader, len(q.Base))
	for s, c := range q.Base {
		if c.ValidOnly {
			v, err := format.NewValidReader(fr.ParquetReader().RowGroup(t.rg), pp.leaves[s], pp.md.Schema.Column(pp.leaves[s]))
			if err != nil {
				return fmt.Errorf("file %s, column %s: %w", pp.p.Path, c.Name, err)
			}
			valids[s] = v
		}
	}
	for off := 0; off < nrows; {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := min(column.ChunkRows, nrows-off)
		cols := make([]*column.Column, len(q.Base))
		if len(full) > 0 {
			var rec arrow.RecordBatch
			if rr != nil {
				ok, err := format.NextRecord(rr)
				if err != nil {
					if ctx.Err() != nil {
						return ctx.Err()
					}
					return fmt.Errorf("file %s, row group %d: %w", pp.p.Path, t.rg, err)
				}
				if !ok {
					return fmt.Errorf("file %s, row group %d: fewer rows than its footer says", pp.p.Path, t.rg)
				}
				rec = rr.RecordBatch()
				n = int(rec.NumRows())
			}
			base := int(pp.first[t.rg]) + off
			col := func(s int) (*column.Column, error) {
				if d := own[s]; d != nil {
					c, err := d.Next(n, pr.buffers(s, n, d.Typ))
					if ae, ok := err.(*format.ArrowErr); ok {
						return nil, format.LoadError(pp.p.Path, q.Base[s].Name, base+ae.Row+1, "row", ae.Err)
					} else if err != nil {
						return nil, fmt.Errorf("file %s, row group %d, column %s: %w", pp.p.Path, t.rg, q.Base[s].Name, err)
					}
					return c, nil
				}
				return format.BatchColumn(q.Base[s], rec.Column(recCol[s]), pp.p.Path, base, q.inferred[s])
			}
			// The time column first: a batch outside the range is
			// skipped without converting the rest.
			if !one {
				c, err := col(q.TimeSlot)
				if err != nil {
					return err
				}
				cols[q.TimeSlot] = c
				if !inside && !q.Meets(column.ZoneOf(c, 0, n)) {
					for _, v := range valids {
						if v != nil {
							if _, err := v.Next(n); err != nil {
								return fmt.Errorf("file %s: %w", pp.p.Path, err)
							}
						}
					}
					for s, d := range own {
						if d != nil && s != q.TimeSlot {
							if err := d.Skip(n, pr.buffers(s, n, d.Typ)); err != nil {
								return fmt.Errorf("file %s, row group %d, column %s: %w", pp.p.Path, t.rg, q.Base[s].Name, err)
							}
						}
					}
					off += n
					continue
				}
			}
			for _, s := range full {
				if s == q.TimeSlot && !one {
					continue
				}
				c, err := col(s)
				if err != nil {
					return err
				}
				cols[s] = c
			}
		}
		for s, v := range valids {
			if v == nil {
				continue
			}
			bits, err := v.Next(n)
			if err != nil {
				return fmt.Errorf("file %s, column %s: %w", pp.p.Path, q.Base[s].Name, err)
			}
			cols[s] = &column.Column{Name: q.Base[s].Name, Type: q.Base[s].Type, N: n, Valid: bits, ValidOnly: true, ID: column.ColumnIDs.Add(1)}
		}
		if err := each(&kernel.Batch{Lo: 0, Hi: n, Group: t.group, Cols: cols, OneBucket: one, Bucket: bucket}); err != nil {
			return err
		}
		off += n
	}
	return nil
}
