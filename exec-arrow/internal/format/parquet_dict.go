package format

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
)

// Parquet page types, as the format numbers them.
const (
	PageData       = 0
	pageDictionary = 2
)

// DictChunk decodes one dictionary-encoded column chunk of a required
// text, date or integer column straight from its pages: the dictionary
// once, then each batch's indexes from the RLE/bit-packed runs into the
// worker's buffers. It spares the general decoder's per-chunk buffers,
// builders and copies (and the collections they cause) on the columns a
// streamed question filters, groups, buckets and joins by. An integer
// chunk may go on in PLAIN pages once its dictionary is full (writers
// fall back so on a key with many distinct values); their values are
// copied as they are.
type DictChunk struct {
	pr    file.PageReader
	name  string
	Typ   domain.ColumnType
	id    uint64     // one column id per dictionary: per-batch caches carry over
	texts []string   // text: the dictionary
	days  []int32    // date: the dictionary
	ints  []int64    // integer: the dictionary
	empty []bool     // text: entries that are empty (null)
	some  bool       // text: some entry is empty
	left  int        // values left in the current page
	runs  HybridRuns // the current page's indexes
	plain []byte     // integer: the current page's values, when it is PLAIN
}

// DictBuffers are a worker's buffers for one column slot, reused batch
// after batch: idx for indexes, days or ints for the values.
type DictBuffers struct {
	Idx  []int32
	Days []arrow.Date32
	Ints []int64
}

// DictEligible reports whether a column chunk can be read by a dictChunk:
// a required, unnested text (byte array), date (int32 date) or integer
// (int64, signed, no other logical type) column whose footer says it has
// a dictionary and every data page is a version-1 page of dictionary
// indexes, or, for an integer, of PLAIN values.
func DictEligible(rgm *metadata.RowGroupMetaData, leaf int, descr *schema.Column, typ domain.ColumnType) bool {
	if descr.MaxDefinitionLevel() != 0 || descr.MaxRepetitionLevel() != 0 {
		return false
	}
	plain := false
	switch {
	case typ == domain.TypeText && descr.PhysicalType() == parquet.Types.ByteArray:
	case typ == domain.TypeDate && descr.PhysicalType() == parquet.Types.Int32:
		if _, ok := ParquetDay(descr); !ok {
			return false
		}
	case typ == domain.TypeInteger && descr.PhysicalType() == parquet.Types.Int64:
		if !plainInt64(descr) {
			return false
		}
		plain = true
	default:
		return false
	}
	cc, err := rgm.ColumnChunk(leaf)
	if err != nil || !cc.HasDictionaryPage() {
		return false
	}
	stats := cc.EncodingStats()
	data := false
	for _, st := range stats {
		switch st.PageType {
		case pageDictionary:
		case PageData:
			if st.Encoding != parquet.Encodings.RLEDict && st.Encoding != parquet.Encodings.PlainDict &&
				!(plain && st.Encoding == parquet.Encodings.Plain) {
				return false
			}
			data = true
		default:
			return false
		}
	}
	return data
}

// plainInt64 reports whether an int64 column holds signed 64-bit
// integers as they are: no logical type, or a signed 64-bit integer one
// (a timestamp, a decimal or an unsigned integer is read by pqarrow).
func plainInt64(descr *schema.Column) bool {
	switch lt := descr.LogicalType().(type) {
	case nil, schema.NoLogicalType:
		return descr.ConvertedType() == schema.ConvertedTypes.None || descr.ConvertedType() == schema.ConvertedTypes.Int64
	case schema.IntLogicalType:
		return lt.BitWidth() == 64 && lt.IsSigned()
	}
	return false
}

// NewDictChunk opens the chunk's pages and reads its dictionary.
func NewDictChunk(rg *file.RowGroupReader, leaf int, proto *column.Column) (*DictChunk, error) {
	pr, err := columnPages(rg, leaf)
	if err != nil {
		return nil, err
	}
	d := &DictChunk{pr: pr, name: proto.Name, Typ: proto.Type, id: column.ColumnIDs.Add(1)}
	page, err := readPage(pr)
	if err != nil {
		return nil, err
	}
	if page == nil {
		return nil, fmt.Errorf("the column chunk has no dictionary page")
	}
	dp, ok := page.(*file.DictionaryPage)
	if !ok {
		return nil, fmt.Errorf("the column chunk does not start with its dictionary")
	}
	if err := d.readDictionary(dp.Data(), int(dp.NumValues())); err != nil {
		return nil, err
	}
	return d, nil
}

// readDictionary decodes a PLAIN dictionary page.
func (d *DictChunk) readDictionary(data []byte, n int) error {
	if n < 0 || n > len(data) && d.Typ == domain.TypeText || n > len(data)/4 && d.Typ == domain.TypeDate ||
		n > len(data)/8 && d.Typ == domain.TypeInteger {
		return fmt.Errorf("the dictionary page is shorter than its values")
	}
	if d.Typ == domain.TypeInteger {
		d.ints = make([]int64, n)
		for i := range d.ints {
			d.ints[i] = int64(binary.LittleEndian.Uint64(data[8*i:]))
		}
		return nil
	}
	if d.Typ == domain.TypeDate {
		d.days = make([]int32, n)
		for i := range d.days {
			d.days[i] = int32(binary.LittleEndian.Uint32(data[4*i:]))
		}
		return nil
	}
	d.texts, d.empty = make([]string, n), make([]bool, n)
	for i := range d.texts {
		if len(data) < 4 {
			return fmt.Errorf("the dictionary page is shorter than its values")
		}
		l := binary.LittleEndian.Uint32(data)
		if uint64(l) > uint64(len(data)-4) {
			return fmt.Errorf("the dictionary page is shorter than its values")
		}
		d.texts[i] = string(data[4 : 4+l])
		data = data[4+l:]
		if l == 0 {
			d.empty[i], d.some = true, true
		}
	}
	return nil
}

// Next decodes the next n values as a batch column into the worker's
// buffers (each at least n long; see parquetReaders.buffers).
func (d *DictChunk) Next(n int, buf DictBuffers) (*column.Column, error) {
	if d.Typ == domain.TypeInteger {
		return d.nextInts(n, buf)
	}
	idx, days := buf.Idx[:n], buf.Days
	if err := d.pages(n, n, func(got, k int) error { return d.runs.Decode(idx[got : got+k]) }); err != nil {
		return nil, err
	}
	size := len(d.texts)
	if d.Typ == domain.TypeDate {
		size = len(d.days)
	}
	var bad bool
	for _, i := range idx {
		bad = bad || uint32(i) >= uint32(size)
	}
	if bad {
		return nil, fmt.Errorf("a dictionary index is out of range")
	}
	c := &column.Column{Name: d.name, Type: d.Typ, N: n, ID: d.id}
	if d.Typ == domain.TypeDate {
		days = days[:n]
		dict := d.days
		for r, i := range idx {
			days[r] = arrow.Date32(dict[i])
		}
		c.Days, c.Bytes = days, int64(4*n)
		return c, nil
	}
	c.Idx, c.Dict, c.Bytes = idx, d.texts, int64(4*n)
	if d.some {
		bits := make([]byte, bitutil.BytesForBits(int64(n)))
		for r, i := range idx {
			if !d.empty[i] {
				bitutil.SetBit(bits, r)
			}
		}
		c.Valid = bits
	}
	return c, nil
}

// nextInts is next for an integer chunk: indexes looked up in the
// dictionary, PLAIN values copied.
func (d *DictChunk) nextInts(n int, buf DictBuffers) (*column.Column, error) {
	out := buf.Ints[:n]
	err := d.pages(n, n, func(got, k int) error {
		dst := out[got : got+k]
		if d.plain != nil {
			for i := range dst {
				dst[i] = int64(binary.LittleEndian.Uint64(d.plain[8*i:]))
			}
			d.plain = d.plain[8*k:]
			return nil
		}
		idx := buf.Idx[:k]
		if err := d.runs.Decode(idx); err != nil {
			return err
		}
		dict, size := d.ints, uint32(len(d.ints))
		var bad bool
		for _, i := range idx {
			bad = bad || uint32(i) >= size
		}
		if bad {
			return fmt.Errorf("a dictionary index is out of range")
		}
		for r, i := range idx {
			dst[r] = dict[i]
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &column.Column{Name: d.name, Type: d.Typ, N: n, ID: column.ColumnIDs.Add(1), Ints: out, Bytes: int64(8 * n)}, nil
}

// Skip decodes and drops the next n values (a batch outside the range).
func (d *DictChunk) Skip(n int, idx []int32) error {
	return d.pages(n, len(idx), func(_, k int) error {
		if d.plain != nil {
			d.plain = d.plain[8*k:]
			return nil
		}
		return d.runs.Decode(idx[:k])
	})
}

// pages walks the next n values page by page, moving to the next page
// as each ends: f takes the k values (at most limit) that start at value
// got of the n, from the current page.
func (d *DictChunk) pages(n, limit int, f func(got, k int) error) error {
	for got := 0; got < n; {
		if d.left == 0 {
			if err := d.nextPage(); err != nil {
				return err
			}
			continue
		}
		k := min(n-got, d.left, limit)
		if err := f(got, k); err != nil {
			return err
		}
		d.left -= k
		got += k
	}
	return nil
}

// nextPage moves to the next data page of indexes.
func (d *DictChunk) nextPage() error {
	page, err := readPage(d.pr)
	if err != nil {
		return err
	}
	if page == nil {
		return fmt.Errorf("the column chunk ends early")
	}
	p, ok := page.(*file.DataPageV1)
	if !ok {
		return fmt.Errorf("a data page of the column chunk is not a version-1 page")
	}
	data := p.Data()
	if p.NumValues() < 0 || (p.NumValues() > 0 && len(data) == 0) {
		return fmt.Errorf("a data page of the column chunk is empty")
	}
	d.plain = nil
	enc := parquet.Encoding(p.Encoding())
	if enc == parquet.Encodings.Plain && d.Typ == domain.TypeInteger {
		if int(p.NumValues()) > len(data)/8 {
			return fmt.Errorf("a data page of the column chunk is shorter than its values")
		}
		d.left = int(p.NumValues())
		d.plain = data[:8*d.left]
		return nil
	}
	if enc != parquet.Encodings.RLEDict && enc != parquet.Encodings.PlainDict {
		return fmt.Errorf("a data page of the column chunk is not dictionary-encoded")
	}
	d.left = int(p.NumValues())
	if d.left == 0 {
		return nil
	}
	width := uint(data[0])
	if width > 32 {
		return fmt.Errorf("a data page of the column chunk has indexes of %d bits", width)
	}
	d.runs = HybridRuns{Data: data[1:], Width: width}
	return nil
}

func (d *DictChunk) Close() { _ = d.pr.Close() }

// columnPages opens the pages of a column chunk; a panic of the Parquet
// library on a malformed chunk is errParquetPanic (see nextRecord).
func columnPages(rg *file.RowGroupReader, leaf int) (pr file.PageReader, err error) {
	defer func() {
		if recover() != nil {
			pr, err = nil, errParquetPanic
		}
	}()
	return rg.GetColumnPageReader(leaf)
}

// readPage returns the next page of pr, nil at the end of the chunk; a
// panic of the Parquet library on a malformed page is errParquetPanic.
func readPage(pr file.PageReader) (p file.Page, err error) {
	defer func() {
		if recover() != nil {
			p, err = nil, errParquetPanic
		}
	}()
	if !pr.Next() {
		return nil, pr.Err()
	}
	return pr.Page(), nil
}

// HybridRuns decodes Parquet's RLE/bit-packed hybrid encoding of
// unsigned integers of width bits: runs of one repeated value, and runs
// of groups of eight values packed least significant bit first.
type HybridRuns struct {
	Data   []byte
	Width  uint
	repeat int    // values left in the current repeated run
	value  int32  // its value
	packed int    // values left in the current bit-packed run
	acc    uint64 // bits of the packed run read ahead
	bits   uint   // how many
}

// Decode fills out with the next len(out) values.
func (h *HybridRuns) Decode(out []int32) error {
	mask := uint64(math.MaxUint32) >> (32 - h.Width)
	if h.Width == 0 {
		mask = 0
	}
	for len(out) > 0 {
		switch {
		case h.repeat > 0:
			k := min(h.repeat, len(out))
			v := h.value
			for i := range out[:k] {
				out[i] = v
			}
			out, h.repeat = out[k:], h.repeat-k
		case h.packed > 0:
			k := min(h.packed, len(out))
			data, acc, bits, w := h.Data, h.acc, h.bits, h.Width
			i := 0
			if w <= 8 && bits == 0 {
				// Whole groups of eight values at a time: w bytes each.
				for ; i+8 <= k && len(data) >= 8; i += 8 {
					g := binary.LittleEndian.Uint64(data)
					o := out[i : i+8 : i+8]
					o[0], o[1], o[2], o[3] = int32(g&mask), int32(g>>w&mask), int32(g>>(2*w)&mask), int32(g>>(3*w)&mask)
					o[4], o[5], o[6], o[7] = int32(g>>(4*w)&mask), int32(g>>(5*w)&mask), int32(g>>(6*w)&mask), int32(g>>(7*w)&mask)
					data = data[w:]
				}
			}
			for ; i < k; i++ {
				for bits < w {
					if len(data) == 0 {
						return fmt.Errorf("a run of dictionary indexes ends early")
					}
					acc |= uint64(data[0]) << bits
					data, bits = data[1:], bits+8
				}
				out[i] = int32(acc & mask)
				acc, bits = acc>>w, bits-w
			}
			h.Data, h.acc, h.bits = data, acc, bits
			out, h.packed = out[k:], h.packed-k
		default:
			if err := h.header(); err != nil {
				return err
			}
		}
	}
	return nil
}

// header reads the next run's header.
func (h *HybridRuns) header() error {
	hdr, n := binary.Uvarint(h.Data)
	if n <= 0 || hdr>>1 > math.MaxInt32/8 {
		return fmt.Errorf("a run of dictionary indexes is malformed")
	}
	h.Data = h.Data[n:]
	if hdr&1 == 1 {
		// Groups of eight values; padding bits of the last group are
		// dropped with the run.
		h.packed = int(hdr>>1) * 8
		h.acc, h.bits = 0, 0
		need := int(hdr>>1) * int(h.Width)
		if need > len(h.Data) {
			// The last run of a page may be cut short of its padding.
			h.packed = len(h.Data) * 8 / max(int(h.Width), 1)
			if h.Width == 0 {
				h.packed = int(hdr>>1) * 8
			}
		}
		return nil
	}
	nb := int(h.Width+7) / 8
	if nb > len(h.Data) {
		return fmt.Errorf("a run of dictionary indexes ends early")
	}
	var v uint32
	for i := nb - 1; i >= 0; i-- {
		v = v<<8 | uint32(h.Data[i])
	}
	h.repeat, h.value, h.Data = int(hdr>>1), int32(v), h.Data[nb:]
	return nil
}

// ParquetDay returns how a stored value of a date or timestamp column
// becomes a day; ok is false for any other column. (A timestamp's logical
// type is the value schema.TimestampLogicalType, never a pointer.)
func ParquetDay(c *schema.Column) (toDay func(int64) int32, ok bool) {
	switch lt := c.LogicalType().(type) {
	case schema.DateLogicalType:
		if c.PhysicalType() == parquet.Types.Int32 {
			return func(v int64) int32 { return int32(v) }, true
		}
	case schema.TimestampLogicalType:
		if c.PhysicalType() != parquet.Types.Int64 {
			return nil, false
		}
		perMicro := int64(1)
		switch lt.TimeUnit() {
		case schema.TimeUnitMillis:
			return func(v int64) int32 { return column.DayOfMicros(v * 1000) }, true
		case schema.TimeUnitNanos:
			perMicro = 1000
		}
		return func(v int64) int32 { return column.DayOfMicros(floorDiv(v, perMicro)) }, true
	}
	return nil, false
}
