package format

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/rle"
)

// Parquet page types, as the format numbers them.
const (
	PageData       = 0
	pageDictionary = 2
	pageDataV2     = 3
)

// PageChunk decodes one column chunk straight from its pages into a
// worker's buffers: definition levels (an OPTIONAL column's nulls) and
// values, of dictionary pages (the dictionary decoded and converted
// once, then each batch's indexes from the RLE/bit-packed runs) and of
// PLAIN pages (writers fall back to them when a dictionary fills up,
// DuckDB writes whole chunks of them for columns of many distinct
// values), of version-1 and version-2 data pages. It spares the general
// decoder's per-chunk Arrow arrays, builders and copies, and gives each
// value exactly what the general path (pqarrow then a builder) gives it:
// timestamps of any unit as microseconds, dates as days, INT32/INT64
// DECIMALs as int64 coefficients at the file's scale, empty text as null.
type PageChunk struct {
	src   pageSource
	io    *PageIO // the worker's memory for the column's pages (nil: none)
	name  string
	Typ   domain.ColumnType
	phys  parquet.Type
	opt   bool  // OPTIONAL: the pages carry definition levels
	unit  int64 // timestamp: stored values per microsecond (1000: ns), or -1000 (ms)
	scale int32 // decimal: the column's scale
	bound int64 // decimal: every coefficient's magnitude is below it (0: any)
	prec  int32 // decimal: the column's precision, when bound is set
	id    uint64

	dict    bool // the chunk has a dictionary page
	dInts   []int64
	dDays   []arrow.Date32
	dFloats []float64
	dTexts  []string
	dEmpty  bool // text: some entry is empty (null)

	left    int      // values (nulls included) left in the current page
	head    pageHead // the current page's header
	pending bool     // its data is not read yet (see load)
	row     int64    // the chunk's next row
	total   int64    // the chunk's rows, by its footer
	index   bool     // the file has an offset index of the chunk's pages
	ended   bool     // skipped to the chunk's end
	defs    rle.Runs // the current page's definition levels
	coded   bool     // the current page holds dictionary indexes
	runs    rle.Runs // its indexes
	plain   []byte   // or its PLAIN values
	bit     int      // boolean: the next PLAIN value's bit in plain
	used    bool     // text: this batch took a value of the dictionary
	extras  []string // text: this batch's PLAIN values
	empty   bool     // text: one of them is empty
	out     bool     // text: this batch left a PLAIN value out
	batch   int      // the current batch's rows
}

// DictBuffers are a worker's buffers for one column slot, reused batch
// after batch (a batch's columns are done with when the next is decoded).
type DictBuffers struct {
	Idx    []int32
	Days   []arrow.Date32
	Ints   []int64
	Floats []float64
	Defs   []int32
	Valid  []byte
	Bits   []byte // boolean: the values' bitmap
	// Keep, when not nil, marks the rows of the batch that may count: a
	// PLAIN text of another row is left out (null), not copied.
	Keep []byte
	// IO is the slot's memory for reading pages (see PageIO).
	IO *PageIO
}

// Grow returns b with each buffer a PageChunk of type typ needs at least
// n long.
func (b DictBuffers) Grow(n int, typ domain.ColumnType) DictBuffers {
	grow := func(s []int32) []int32 {
		if len(s) < n {
			return make([]int32, n)
		}
		return s
	}
	b.Idx, b.Defs = grow(b.Idx), grow(b.Defs)
	if len(b.Valid) < (n+7)/8 {
		b.Valid = make([]byte, (n+7)/8)
	}
	switch typ {
	case domain.TypeBoolean:
		if len(b.Bits) < (n+7)/8 {
			b.Bits = make([]byte, (n+7)/8)
		}
	case domain.TypeDate:
		if len(b.Days) < n {
			b.Days = make([]arrow.Date32, n)
		}
	case domain.TypeFloat:
		if len(b.Floats) < n {
			b.Floats = make([]float64, n)
		}
	case domain.TypeInteger, domain.TypeTimestamp, domain.TypeDecimal:
		if len(b.Ints) < n {
			b.Ints = make([]int64, n)
		}
	}
	return b
}

// pageKind is how a column of a declared type is read from its stored
// type; ok is false when the general path must read it.
func pageKind(descr *schema.Column, proto *column.Column) (unit int64, scale int32, bound int64, prec int32, ok bool) {
	phys := descr.PhysicalType()
	switch proto.Type {
	case domain.TypeText:
		_, str := descr.LogicalType().(schema.StringLogicalType)
		return 0, 0, 0, 0, phys == parquet.Types.ByteArray && (str || descr.ConvertedType() == schema.ConvertedTypes.UTF8)
	case domain.TypeFloat:
		return 0, 0, 0, 0, phys == parquet.Types.Double && noLogical(descr)
	case domain.TypeBoolean:
		return 0, 0, 0, 0, phys == parquet.Types.Boolean && noLogical(descr)
	case domain.TypeDate:
		_, date := descr.LogicalType().(schema.DateLogicalType)
		return 0, 0, 0, 0, phys == parquet.Types.Int32 && date
	case domain.TypeInteger:
		switch phys {
		case parquet.Types.Int64:
			return 0, 0, 0, 0, plainInt64(descr)
		case parquet.Types.Int32:
			lt, isInt := descr.LogicalType().(schema.IntLogicalType)
			return 0, 0, 0, 0, isInt && lt.IsSigned() || noLogical(descr)
		}
	case domain.TypeTimestamp:
		lt, isTS := descr.LogicalType().(schema.TimestampLogicalType)
		if phys != parquet.Types.Int64 || !isTS {
			return 0, 0, 0, 0, false
		}
		switch lt.TimeUnit() {
		case schema.TimeUnitMillis:
			return -1000, 0, 0, 0, true
		case schema.TimeUnitMicros:
			return 1, 0, 0, 0, true
		case schema.TimeUnitNanos:
			return 1000, 0, 0, 0, true
		}
	case domain.TypeDecimal:
		lt, isDec := descr.LogicalType().(schema.DecimalLogicalType)
		if !isDec || phys != parquet.Types.Int32 && phys != parquet.Types.Int64 {
			return 0, 0, 0, 0, false
		}
		// The coefficients are taken at the file's scale: a declared
		// scale that differs is the general path's (it rescales or
		// refuses).
		if proto.Spec.Scaled && proto.Spec.Scale != lt.Scale() {
			return 0, 0, 0, 0, false
		}
		p := proto.Spec.Precision
		if p == 0 {
			p = domain.MaxDecimalDigits
		}
		if p < 19 {
			bound = int64(math.Pow10(int(p)))
		}
		return 0, lt.Scale(), bound, p, true
	}
	return 0, 0, 0, 0, false
}

func noLogical(descr *schema.Column) bool {
	switch descr.LogicalType().(type) {
	case nil, schema.NoLogicalType:
		return descr.ConvertedType() == schema.ConvertedTypes.None
	}
	return false
}

// plainInt64 reports whether an int64 column holds signed 64-bit
// integers as they are: no logical type, or a signed 64-bit integer one
// (a timestamp, a decimal or an unsigned integer is not).
func plainInt64(descr *schema.Column) bool {
	switch lt := descr.LogicalType().(type) {
	case nil, schema.NoLogicalType:
		return descr.ConvertedType() == schema.ConvertedTypes.None || descr.ConvertedType() == schema.ConvertedTypes.Int64
	case schema.IntLogicalType:
		return lt.BitWidth() == 64 && lt.IsSigned()
	}
	return false
}

// PageEligible reports whether a PageChunk can read column leaf of a row
// group as a column of proto's type: a flat REQUIRED or OPTIONAL column
// of a stored type it converts (see PageChunk) whose footer lists only
// PLAIN and dictionary encodings for its values (and RLE for its levels).
func PageEligible(rgm *metadata.RowGroupMetaData, leaf int, descr *schema.Column, proto *column.Column) bool {
	if descr.MaxDefinitionLevel() > 1 || descr.MaxRepetitionLevel() != 0 {
		return false
	}
	if _, _, _, _, ok := pageKind(descr, proto); !ok {
		return false
	}
	cc, err := rgm.ColumnChunk(leaf)
	if err != nil {
		return false
	}
	if stats := cc.EncodingStats(); len(stats) > 0 {
		for _, st := range stats {
			switch {
			case st.PageType == pageDictionary:
			case st.PageType == PageData || st.PageType == pageDataV2:
				if !pageEncoding(st.Encoding) {
					return false
				}
			default:
				return false
			}
		}
		return true
	}
	for _, e := range cc.Encodings() {
		if !pageEncoding(e) && e != parquet.Encodings.RLE {
			return false
		}
	}
	return true
}

func pageEncoding(e parquet.Encoding) bool {
	return e == parquet.Encodings.Plain || e == parquet.Encodings.PlainDict || e == parquet.Encodings.RLEDict
}

// NewPageChunk opens the pages of column leaf of a row group (see
// PageEligible) through the Parquet library's page reader and reads its
// dictionary, if it has one.
func NewPageChunk(rg *file.RowGroupReader, leaf int, descr *schema.Column, proto *column.Column) (*PageChunk, error) {
	if _, _, _, _, ok := pageKind(descr, proto); !ok {
		return nil, fmt.Errorf("the column's stored type is not read page by page")
	}
	pr, err := columnPages(rg, leaf)
	if err != nil {
		return nil, err
	}
	cc, err := rg.MetaData().ColumnChunk(leaf)
	if err != nil {
		_ = pr.Close()
		return nil, err
	}
	return newPageChunk(&arrowPages{pr: pr, index: cc.GetOffsetIndexLocation() != nil}, nil, cc, descr, proto)
}

// ChunkSource is where a PageChunk reads a row group's column chunks
// from itself: the file, its footer-parsed reader (for the offset
// indexes), the largest uncompressed page the file may declare (see
// PageLimit), and the worker's memory for the column's pages.
type ChunkSource struct {
	Src   io.ReaderAt
	File  *file.Reader
	Limit int64
	IO    *PageIO
}

// NewPageChunkAt opens the pages of column leaf of row group rg (see
// PageEligible) read from cs itself: header by header, a page's bytes
// read into the worker's window and decompressed into its page buffer
// only when one of its rows is decoded. An encrypted column chunk is
// read as NewPageChunk reads it.
func NewPageChunkAt(cs ChunkSource, rg, leaf int, descr *schema.Column, proto *column.Column) (*PageChunk, error) {
	rgm := cs.File.MetaData().RowGroup(rg)
	cc, err := rgm.ColumnChunk(leaf)
	if err != nil {
		return nil, err
	}
	if cc.CryptoMetadata() != nil || cs.IO == nil || cs.Src == nil {
		return NewPageChunk(cs.File.RowGroup(rg), leaf, descr, proto)
	}
	if _, _, _, _, ok := pageKind(descr, proto); !ok {
		return nil, fmt.Errorf("the column's stored type is not read page by page")
	}
	var index func() ([]metadata.PageLocation, error)
	if cc.GetOffsetIndexLocation() != nil {
		index = func() ([]metadata.PageLocation, error) { return offsetIndex(cs.File, rg, leaf) }
	}
	src, err := newChunkPages(cs.Src, cs.IO, cc, cs.File.MetaData().GetSourceFileSize(), cs.Limit, index)
	if err != nil {
		return nil, err
	}
	return newPageChunk(src, cs.IO, cc, descr, proto)
}

// offsetIndex reads the page locations of a column chunk; a panic of
// the Parquet library on a malformed index is errParquetPanic.
func offsetIndex(pf *file.Reader, rg, leaf int) (locs []metadata.PageLocation, err error) {
	defer func() {
		if recover() != nil {
			locs, err = nil, errParquetPanic
		}
	}()
	rr, err := pf.GetPageIndexReader().RowGroup(rg)
	if err != nil || rr == nil {
		return nil, err
	}
	oi, err := rr.GetOffsetIndex(leaf)
	if err != nil || oi == nil {
		return nil, err
	}
	for _, l := range oi.GetPageLocations() {
		if l != nil {
			locs = append(locs, *l)
		}
	}
	return locs, nil
}

func newPageChunk(src pageSource, io *PageIO, cc *metadata.ColumnChunkMetaData, descr *schema.Column, proto *column.Column) (*PageChunk, error) {
	unit, scale, bound, prec, _ := pageKind(descr, proto)
	d := &PageChunk{src: src, io: io, name: proto.Name, Typ: proto.Type, phys: descr.PhysicalType(), opt: descr.MaxDefinitionLevel() == 1,
		unit: unit, scale: scale, bound: bound, prec: prec, id: column.ColumnIDs.Add(1),
		total: cc.NumValues(), index: cc.GetOffsetIndexLocation() != nil}
	// The dictionary is read first, so that a skip may seek past pages.
	if err := d.nextPage(); err != nil && d.total > 0 {
		d.Close()
		return nil, err
	}
	return d, nil
}

// readDictionary decodes a PLAIN dictionary page and converts its
// values once.
func (d *PageChunk) readDictionary(data []byte, n int) error {
	if d.dict {
		return fmt.Errorf("the column chunk has a second dictionary")
	}
	d.dict = true
	if n < 0 {
		return fmt.Errorf("the dictionary page is shorter than its values")
	}
	if d.phys == parquet.Types.ByteArray {
		d.dTexts = make([]string, n)
		for i := range d.dTexts {
			if len(data) < 4 {
				return fmt.Errorf("the dictionary page is shorter than its values")
			}
			l := binary.LittleEndian.Uint32(data)
			if uint64(l) > uint64(len(data)-4) {
				return fmt.Errorf("the dictionary page is shorter than its values")
			}
			d.dTexts[i] = string(data[4 : 4+l])
			d.dEmpty = d.dEmpty || l == 0
			data = data[4+l:]
		}
		return nil
	}
	if n > len(data)/d.width() {
		return fmt.Errorf("the dictionary page is shorter than its values")
	}
	switch d.Typ {
	case domain.TypeDate:
		d.dDays = make([]arrow.Date32, n)
		d.copyDays(d.dDays, data)
	case domain.TypeFloat:
		d.dFloats = make([]float64, n)
		copyFloats(d.dFloats, data)
	default:
		// In the worker's memory, reused chunk after chunk (a batch's
		// integers are copied out of it): a fresh dictionary per chunk
		// is memory touched for the first time. It regrows with a
		// quarter to spare: the chunks of one column often hold
		// dictionaries a few entries apart, and regrowing to each
		// longer one exactly touched fresh memory chunk after chunk.
		switch {
		case d.io == nil:
			d.dInts = make([]int64, n)
		case cap(d.io.dict) >= n:
			d.dInts = d.io.dict[:n]
		default:
			d.io.dict = make([]int64, n, n+n/4)
			d.dInts = d.io.dict
		}
		d.copyInts(d.dInts, data)
	}
	return nil
}

// width is the size of a PLAIN value of a fixed-width stored type.
func (d *PageChunk) width() int {
	if d.phys == parquet.Types.Int32 {
		return 4
	}
	return 8
}

// checkPrecision refuses, as the general path does, the first decimal
// coefficient past the column's precision, naming its row within the
// batch (rows[i], or i when rows is nil, plus base).
func (d *PageChunk) checkPrecision(vals []int64, rows []int32, base int) error {
	bad := false
	for _, v := range vals {
		bad = bad || v >= d.bound || v <= -d.bound
	}
	if !bad {
		return nil
	}
	for i, v := range vals {
		if v >= d.bound || v <= -d.bound {
			r := i
			if rows != nil {
				r = int(rows[i])
			}
			return &ArrowErr{Row: base + r, Err: column.ErrPrecision{Precision: d.prec}}
		}
	}
	return nil
}

// Next decodes the next n rows as a batch column into buf (see
// DictBuffers.Grow). A value the column's type refuses is an *ArrowErr
// naming its row within the batch.
func (d *PageChunk) Next(n int, buf DictBuffers) (*column.Column, error) {
	c := &column.Column{Name: d.name, Type: d.Typ, N: n, ID: column.ColumnIDs.Add(1)}
	valid := buf.Valid[:(n+7)/8]
	clear(valid)
	nulls := 0
	d.used, d.extras, d.empty, d.out, d.batch = false, d.extras[:0], false, false, n
	idx := buf.Idx[:n]
	var view []int64 // the batch's integers where their page lies (see view)
	var bits []byte
	if d.Typ == domain.TypeBoolean {
		bits = buf.Bits[:(n+7)/8]
		clear(bits)
	}
	for got := 0; got < n; {
		if d.left == 0 {
			if err := d.nextPage(); err != nil {
				return nil, err
			}
			continue
		}
		if err := d.load(); err != nil {
			return nil, err
		}
		k := min(n-got, d.left)
		m, rows, err := d.levels(k, buf.Defs[:k], got, valid, true)
		if err != nil {
			return nil, err
		}
		nulls += k - m
		// The m values are decoded densely at got, then spread to their
		// rows (backwards, so none is overwritten before it moves).
		switch d.Typ {
		case domain.TypeText:
			err = d.texts(idx[got:got+m], rows, got, buf.Keep)
			spread(idx[got:got+k], m, rows)
		case domain.TypeBoolean:
			err = d.boolBits(bits, got, rows, idx[got:got+m])
		case domain.TypeDate:
			err = d.values(m, buf.Idx[got:got+m], func(data []byte) { d.copyDays(buf.Days[got:got+m], data) },
				func(ix []int32) {
					for i, j := range ix {
						buf.Days[got+i] = d.dDays[j]
					}
				})
			spread(buf.Days[got:got+k], m, rows)
		case domain.TypeFloat:
			err = d.values(m, buf.Idx[got:got+m], func(data []byte) { copyFloats(buf.Floats[got:got+m], data) },
				func(ix []int32) {
					for i, j := range ix {
						buf.Floats[got+i] = d.dFloats[j]
					}
				})
			spread(buf.Floats[got:got+k], m, rows)
		default:
			// Dictionary values of a page with nulls go straight to their
			// rows, the others cleared at once: a column mostly null
			// (revenue of the few purchases) spreads a value a row.
			scatter := rows != nil && d.coded
			if got == 0 && k == n && rows == nil {
				view = d.view(n)
			}
			vals, at := buf.Ints[got:got+m], rows // the values, and their rows (nil: in order)
			switch {
			case view != nil:
				vals = view
			case scatter:
				vals, at = buf.Ints[got:got+k], nil
				clear(vals)
				err = d.values(m, buf.Idx[got:got+m], nil, func(ix []int32) {
					for i, j := range ix {
						vals[rows[i]] = d.dInts[j]
					}
				})
			default:
				err = d.values(m, buf.Idx[got:got+m], func(data []byte) { d.copyInts(vals, data) },
					func(ix []int32) {
						for i, j := range ix {
							vals[i] = d.dInts[j]
						}
					})
			}
			if err == nil && d.bound > 0 {
				err = d.checkPrecision(vals, at, got)
			}
			if view == nil && !scatter {
				spread(buf.Ints[got:got+k], m, rows)
			}
		}
		if err != nil {
			return nil, err
		}
		d.left -= k
		d.row += int64(k)
		got += k
	}
	switch d.Typ {
	case domain.TypeText:
		nulls += d.textColumn(c, idx, valid)
	case domain.TypeBoolean:
		boolColumn(c, bits)
	case domain.TypeDate:
		c.Days, c.Bytes = buf.Days[:n], int64(4*n)
	case domain.TypeFloat:
		c.Floats, c.Bytes = buf.Floats[:n], int64(8*n)
	default:
		c.Ints, c.Bytes, c.Scale = buf.Ints[:n], int64(8*n), d.scale
		if view != nil {
			c.Ints = view
		}
	}
	if nulls > 0 {
		c.Valid = valid
	}
	return c, nil
}

// view returns the next n values of a page of PLAIN 64-bit integers
// that need no conversion, in the page's memory, when they start on a
// multiple of 8 bytes (nil otherwise, or when the page is short of them):
// a batch all of whose values are in one page reads them where they were
// decompressed instead of a copy. That memory is reused only when the
// chunk's next page is read, in a later batch, and a batch's columns are
// done with by then (DictBuffers).
func (d *PageChunk) view(n int) []int64 {
	if d.coded || d.phys != parquet.Types.Int64 || d.unit == -1000 || d.unit > 1 || !nativeLE || n == 0 || 8*n > len(d.plain) {
		return nil
	}
	p := unsafe.Pointer(&d.plain[0])
	if uintptr(p)%8 != 0 {
		return nil
	}
	d.plain = d.plain[8*n:]
	return unsafe.Slice((*int64)(p), n)
}

// textColumn makes c the text column of the batch's indexes: into the
// chunk's dictionary, into this batch's PLAIN values, or both; empty
// text is null. It returns how many more rows it made null.
func (d *PageChunk) textColumn(c *column.Column, idx []int32, valid []byte) int {
	c.Idx, c.Bytes = idx, int64(4*len(idx))
	more := 0
	if d.out {
		for r, i := range idx {
			if i < 0 {
				// A PLAIN text left out: its row cannot count.
				idx[r] = 0
				if valid[r>>3]&(1<<(r&7)) != 0 {
					valid[r>>3] &^= 1 << (r & 7)
					more++
				}
			}
		}
	}
	empty := d.empty
	switch {
	case len(d.extras) == 0:
		c.Dict, c.ID = d.dTexts, d.id
		empty = d.dEmpty
	case !d.used:
		// PLAIN values only: their indexes start past the dictionary.
		base := int32(len(d.dTexts))
		for i := range idx {
			idx[i] = max(idx[i]-base, 0)
		}
		c.Dict = d.extras
	default:
		c.Dict = append(append(make([]string, 0, len(d.dTexts)+len(d.extras)), d.dTexts...), d.extras...)
		empty = empty || d.dEmpty
	}
	if len(c.Dict) == 0 {
		c.Dict = []string{""}
	}
	d.extras, d.out, d.empty = nil, false, false
	if !empty {
		return more
	}
	dict := c.Dict
	for r, i := range idx {
		if dict[i] == "" && valid[r>>3]&(1<<(r&7)) != 0 {
			valid[r>>3] &^= 1 << (r & 7)
			more++
		}
	}
	return more
}

// levels reads the definition levels of the next k values (k ≤ left),
// sets the valid bits of the present ones (at row got on, in a bitmap
// whose bits there are clear), and returns how many are present and,
// when some are null and rows are wanted, the row (within the k) of each
// present value, in rows' memory.
func (d *PageChunk) levels(k int, rows []int32, got int, valid []byte, wantRows bool) (int, []int32, error) {
	if !d.opt {
		rle.SetBits(valid, got, k)
		return k, nil, nil
	}
	m, err := d.defs.DecodeBits(valid, got, k)
	if err != nil || m == k || !wantRows {
		return m, nil, err
	}
	return m, presentRows(valid, got, k, rows[:k]), nil
}

// spread moves the m values at the start of out to their rows (nil: they
// are already there), the others set to zero.
func spread[T any](out []T, m int, rows []int32) {
	if rows == nil {
		return
	}
	var zero T
	next := len(out) - 1
	for j := m - 1; j >= 0; j-- {
		r := int(rows[j])
		for ; next > r; next-- {
			out[next] = zero
		}
		out[r] = out[j]
		next = r - 1
	}
	for ; next >= 0; next-- {
		out[next] = zero
	}
}

// values decodes the next m values of a fixed-width column: PLAIN bytes
// through plain, dictionary indexes (checked) through dict.
func (d *PageChunk) values(m int, idx []int32, plain func([]byte), dict func([]int32)) error {
	if !d.coded {
		w := d.width()
		if m*w > len(d.plain) {
			return fmt.Errorf("a data page of the column chunk is shorter than its values")
		}
		plain(d.plain[:m*w])
		d.plain = d.plain[m*w:]
		return nil
	}
	if err := d.indexes(idx, d.dictLen()); err != nil {
		return err
	}
	dict(idx)
	return nil
}

func (d *PageChunk) dictLen() int {
	return max(len(d.dInts), len(d.dDays), len(d.dFloats), len(d.dTexts))
}

// indexes decodes dictionary indexes, each checked against size.
func (d *PageChunk) indexes(idx []int32, size int) error {
	if err := d.runs.Decode(idx); err != nil {
		return err
	}
	if w := d.runs.Width; w < 31 && 1<<w <= size && d.runs.Top() < int32(size) {
		// No bit-packed index passes its width, nor any repeated one
		// met so far the dictionary (event types: 2 bits, 4 entries).
		return nil
	}
	if len(idx) > 0 && maxIndex(idx) >= uint32(size) {
		return fmt.Errorf("a dictionary index is out of range")
	}
	return nil
}

// maxIndex is the largest of idx as unsigned (a negative index is larger
// than any dictionary), on four running maxima: a compare and a
// conditional move a value, where testing each against the bound branched
// (2 ns a value, 8% of a question reading a 60-value dictionary column
// whose 6-bit indexes may pass it).
func maxIndex(idx []int32) uint32 {
	var a, b, c, d uint32
	for len(idx) >= 4 {
		a, b, c, d = max(a, uint32(idx[0])), max(b, uint32(idx[1])), max(c, uint32(idx[2])), max(d, uint32(idx[3]))
		idx = idx[4:]
	}
	for _, i := range idx {
		a = max(a, uint32(i))
	}
	return max(a, b, c, d)
}

// texts decodes the next len(idx) text values as indexes: into the
// dictionary, or, for PLAIN values, past it into the batch's extras
// (their bytes copied once per page run into memory of their own). Value
// i is of row got+rows[i] (got+i when rows is nil); with keep, a PLAIN
// value of a row keep does not mark is left out, its index -1.
func (d *PageChunk) texts(idx []int32, rows []int32, got int, keep []byte) error {
	if d.coded {
		if err := d.indexes(idx, len(d.dTexts)); err != nil {
			return err
		}
		d.used = d.used || len(idx) > 0
		return nil
	}
	kept := func(i int) bool {
		r := got + i
		if rows != nil {
			r = got + int(rows[i])
		}
		return keep == nil || keep[r>>3]>>(r&7)&1 != 0
	}
	data, end, size := d.plain, 0, 0
	for i := range idx {
		if len(data)-end < 4 {
			return fmt.Errorf("a data page of the column chunk is shorter than its values")
		}
		l := int(binary.LittleEndian.Uint32(data[end:]))
		if l > len(data)-end-4 || l < 0 {
			return fmt.Errorf("a data page of the column chunk is shorter than its values")
		}
		end += 4 + l
		if kept(i) {
			size += l
		}
	}
	own := make([]byte, 0, size)
	if d.extras == nil {
		// Sized once for the batch: a batch takes at most a value a row.
		d.extras = make([]string, 0, d.batch)
	}
	base := int32(len(d.dTexts) + len(d.extras))
	for i := range idx {
		l := int(binary.LittleEndian.Uint32(data))
		if !kept(i) {
			idx[i], d.out = -1, true
			data = data[4+l:]
			continue
		}
		var s string
		if l > 0 {
			own = append(own, data[4:4+l]...)
			s = unsafe.String(&own[len(own)-l], l)
		}
		d.empty = d.empty || l == 0
		idx[i] = base
		base++
		d.extras = append(d.extras, s)
		data = data[4+l:]
	}
	d.plain = data
	return nil
}

// Skip drops the next n rows: a page wholly among them is neither
// decompressed nor decoded (read from its file, its bytes past its
// header are not read), and with an offset index the pages before the
// first row after them are not read at all (the reader seeks to its
// page); the other rows are decoded.
func (d *PageChunk) Skip(n int, buf DictBuffers) error {
	if d.index && n > d.left {
		target := d.row + int64(n)
		if target >= d.total {
			d.row, d.left, d.ended = target, 0, true
			return nil
		}
		h, ok, err := d.src.seek(target)
		if err != nil {
			return err
		}
		if ok {
			if h.first < 0 || h.first > target {
				return fmt.Errorf("the offset index does not place row %d", target)
			}
			d.head, d.left, d.pending = h, h.values, true
			n, d.row = int(target-h.first), h.first
		}
	}
	for got := 0; got < n; {
		if d.left == 0 {
			if err := d.nextPage(); err != nil {
				return err
			}
			continue
		}
		if d.pending && n-got >= d.left {
			// The whole page is skipped: its values are never looked at.
			got += d.left
			d.row += int64(d.left)
			d.left, d.pending = 0, false
			continue
		}
		if err := d.load(); err != nil {
			return err
		}
		k := min(n-got, d.left)
		m, _, err := d.levels(k, buf.Defs[:k], 0, buf.Valid, false)
		if err != nil {
			return err
		}
		switch {
		case d.phys == parquet.Types.Boolean:
			err = d.skipBools(m, buf.Idx)
		case d.coded:
			err = d.indexes(buf.Idx[:m], d.dictLen())
		case d.phys == parquet.Types.ByteArray:
			err = d.skipTexts(m)
		default:
			if m*d.width() > len(d.plain) {
				err = fmt.Errorf("a data page of the column chunk is shorter than its values")
			} else {
				d.plain = d.plain[m*d.width():]
			}
		}
		if err != nil {
			return err
		}
		d.left -= k
		d.row += int64(k)
		got += k
	}
	return nil
}

func (d *PageChunk) skipTexts(m int) error {
	for range m {
		if len(d.plain) < 4 {
			return fmt.Errorf("a data page of the column chunk is shorter than its values")
		}
		l := int(binary.LittleEndian.Uint32(d.plain))
		if l > len(d.plain)-4 || l < 0 {
			return fmt.Errorf("a data page of the column chunk is shorter than its values")
		}
		d.plain = d.plain[4+l:]
	}
	return nil
}

// nextPage moves to the next data page, reading a dictionary page met
// on the way; the data page's header alone is read (see load).
func (d *PageChunk) nextPage() error {
	if d.ended {
		return fmt.Errorf("the column chunk ends early")
	}
	for {
		h, err := d.src.next()
		if err == io.EOF {
			return fmt.Errorf("the column chunk ends early")
		}
		if err != nil {
			return err
		}
		switch h.kind {
		case pageDictionary:
			data, err := d.src.data()
			if err != nil {
				return err
			}
			if err := d.readDictionary(data, h.values); err != nil {
				return err
			}
			continue
		case PageData, pageDataV2:
		default:
			continue // an index page, or a kind of page to come: not data
		}
		d.head, d.left, d.pending = h, h.values, true
		return nil
	}
}

// load reads and starts the current data page when it is pending.
func (d *PageChunk) load() error {
	if !d.pending {
		return nil
	}
	d.pending = false
	data, err := d.src.data()
	if err != nil {
		return err
	}
	return d.startPage(d.head, data)
}

// startPage starts a data page: its definition levels, then its values.
func (d *PageChunk) startPage(h pageHead, data []byte) error {
	switch h.kind {
	case PageData:
		if d.opt {
			if h.defEnc != parquet.Encodings.RLE || len(data) < 4 {
				return fmt.Errorf("a data page's definition levels are not RLE-encoded")
			}
			l := binary.LittleEndian.Uint32(data)
			if uint64(l) > uint64(len(data)-4) {
				return fmt.Errorf("a data page's definition levels are longer than the page")
			}
			d.defs = rle.Runs{Data: data[4 : 4+l], Width: 1}
			data = data[4+l:]
		}
	case pageDataV2:
		rl, dl := h.repLen, h.defLen
		if rl != 0 || dl < 0 || dl > len(data) {
			return fmt.Errorf("a data page's levels are malformed")
		}
		if d.opt {
			d.defs = rle.Runs{Data: data[:dl], Width: 1}
		}
		data = data[dl:]
	default:
		return fmt.Errorf("a page of the column chunk is of an unexpected type")
	}
	return d.startValues(h, data)
}

// seekPage moves pr to the data page holding row (by the offset index)
// and returns it; a panic of the Parquet library is errParquetPanic.
func seekPage(pr file.PageReader, row int64) (p file.Page, err error) {
	defer func() {
		if recover() != nil {
			p, err = nil, errParquetPanic
		}
	}()
	if err := pr.SeekToPageWithRow(row); err != nil {
		return nil, err
	}
	if p = pr.Page(); p == nil {
		return nil, fmt.Errorf("the offset index places row %d past the column chunk", row)
	}
	return p, nil
}

// startValues starts the values section of a data page.
func (d *PageChunk) startValues(h pageHead, data []byte) error {
	d.left = h.values
	switch enc := h.enc; {
	case enc == parquet.Encodings.Plain:
		d.coded, d.plain, d.bit = false, data, 0
		d.src.align(data)
	case enc == parquet.Encodings.RLE && d.phys == parquet.Types.Boolean:
		// Booleans as runs of one bit, after the runs' length.
		if len(data) < 4 || uint64(binary.LittleEndian.Uint32(data)) > uint64(len(data)-4) {
			return fmt.Errorf("a data page's booleans are longer than the page")
		}
		d.coded, d.runs = true, rle.Runs{Data: data[4 : 4+binary.LittleEndian.Uint32(data)], Width: 1}
	case enc == parquet.Encodings.RLEDict || enc == parquet.Encodings.PlainDict:
		if !d.dict {
			return fmt.Errorf("a data page of dictionary indexes comes before any dictionary")
		}
		d.coded, d.plain = true, nil
		if len(data) == 0 {
			d.runs = rle.Runs{}
			return nil
		}
		width := uint(data[0])
		if width > 32 {
			return fmt.Errorf("a data page of the column chunk has indexes of %d bits", width)
		}
		d.runs = rle.Runs{Data: data[1:], Width: width}
	default:
		return fmt.Errorf("a data page of the column chunk is of encoding %s", enc)
	}
	return nil
}

// Close releases the chunk's page reader.
func (d *PageChunk) Close() { d.src.close() }
