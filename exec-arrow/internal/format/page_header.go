package format

import (
	"errors"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/parquet"
)

// pageHead is what a PageChunk needs of a page header: its kind
// (PageData, pageDictionary or pageDataV2), its values (nulls included),
// their encoding, the definition levels' encoding (version 1) or the
// levels' lengths (version 2, whose values alone may be compressed), its
// sizes, and the row of its first value within the chunk (-1: unknown).
type pageHead struct {
	kind           int
	values         int
	enc, defEnc    parquet.Encoding
	defLen, repLen int
	compressed     bool // version 2: the values are compressed
	size, raw      int  // uncompressed and stored (compressed) bytes
	first          int64
}

// errShortHeader: the bytes end before the page header does.
var errShortHeader = errors.New("the page header is cut short")

// errBadHeader: the page header is not a Parquet page header.
var errBadHeader = errors.New("a page header is malformed")

// Thrift compact protocol types.
const (
	tTrue   = 1
	tFalse  = 2
	tByte   = 3
	tI16    = 4
	tI32    = 5
	tI64    = 6
	tDouble = 7
	tBinary = 8
	tList   = 9
	tSet    = 10
	tMap    = 11
	tStruct = 12
)

// compact reads Thrift's compact protocol from bytes.
type compact struct {
	b   []byte
	pos int
}

func (c *compact) byte() (byte, error) {
	if c.pos >= len(c.b) {
		return 0, errShortHeader
	}
	v := c.b[c.pos]
	c.pos++
	return v, nil
}

func (c *compact) uvarint() (uint64, error) {
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		b, err := c.byte()
		if err != nil {
			return 0, err
		}
		v |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return v, nil
		}
	}
	return 0, errBadHeader
}

func (c *compact) varint() (int64, error) {
	u, err := c.uvarint()
	return int64(u>>1) ^ -int64(u&1), err
}

// i32 reads an integer field that must fit in 32 bits.
func (c *compact) i32(typ byte) (int32, error) {
	if typ != tI32 && typ != tI16 && typ != tByte {
		return 0, errBadHeader
	}
	if typ == tByte {
		b, err := c.byte()
		return int32(int8(b)), err
	}
	v, err := c.varint()
	if err == nil && (v < math.MinInt32 || v > math.MaxInt32) {
		err = errBadHeader
	}
	return int32(v), err
}

// field reads a field header: its type (0 at the struct's end) and id.
func (c *compact) field(last int16) (typ byte, id int16, err error) {
	b, err := c.byte()
	if err != nil || b == 0 {
		return 0, 0, err
	}
	typ = b & 0x0f
	if d := int16(b >> 4); d != 0 {
		return typ, last + d, nil
	}
	v, err := c.varint()
	if err == nil && (v < math.MinInt16 || v > math.MaxInt16) {
		err = errBadHeader
	}
	return typ, int16(v), err
}

// skip skips a value of type typ (depth: the structures it is nested in).
func (c *compact) skip(typ byte, depth int) error {
	if depth > 16 {
		return errBadHeader
	}
	switch typ {
	case tTrue, tFalse:
		return nil
	case tByte:
		_, err := c.byte()
		return err
	case tI16, tI32, tI64:
		_, err := c.uvarint()
		return err
	case tDouble:
		return c.advance(8)
	case tBinary:
		n, err := c.uvarint()
		if err != nil {
			return err
		}
		if n > math.MaxInt32 {
			return errBadHeader
		}
		return c.advance(int(n))
	case tList, tSet:
		b, err := c.byte()
		if err != nil {
			return err
		}
		n, elem := uint64(b>>4), b&0x0f
		if n == 15 {
			if n, err = c.uvarint(); err != nil {
				return err
			}
		}
		return c.skipN(n, []byte{elem}, depth)
	case tMap:
		n, err := c.uvarint()
		if err != nil || n == 0 {
			return err
		}
		kv, err := c.byte()
		if err != nil {
			return err
		}
		return c.skipN(n, []byte{kv >> 4, kv & 0x0f}, depth)
	case tStruct:
		var last int16
		for {
			t, id, err := c.field(last)
			if err != nil || t == 0 {
				return err
			}
			if err := c.skip(t, depth+1); err != nil {
				return err
			}
			last = id
		}
	}
	return errBadHeader
}

// skipN skips n elements of each of types (a list's, or a map's key and
// value); a boolean element takes a byte.
func (c *compact) skipN(n uint64, types []byte, depth int) error {
	if n > uint64(len(c.b)-c.pos) {
		return errShortHeader // every element takes at least a byte
	}
	for range n {
		for _, t := range types {
			var err error
			if t == tTrue || t == tFalse {
				_, err = c.byte()
			} else {
				err = c.skip(t, depth+1)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *compact) advance(n int) error {
	if n > len(c.b)-c.pos {
		return errShortHeader
	}
	c.pos += n
	return nil
}

// parsePageHeader reads a Parquet PageHeader (Thrift, compact protocol)
// from the start of b and returns it and its length in bytes;
// errShortHeader when b ends first.
func parsePageHeader(b []byte) (pageHead, int, error) {
	c := &compact{b: b}
	h := pageHead{kind: -1, size: -1, raw: -1, first: -1, compressed: true}
	var last int16
	for {
		typ, id, err := c.field(last)
		if err != nil {
			return h, 0, err
		}
		if typ == 0 {
			break
		}
		last = id
		switch {
		case id == 1 && typ == tI32:
			v, err := c.i32(typ)
			if err != nil {
				return h, 0, err
			}
			h.kind = int(v)
		case (id == 2 || id == 3) && typ == tI32:
			v, err := c.i32(typ)
			if err != nil {
				return h, 0, err
			}
			if id == 2 {
				h.size = int(v)
			} else {
				h.raw = int(v)
			}
		case (id == 5 || id == 7 || id == 8) && typ == tStruct:
			if err := c.pageStruct(&h, id); err != nil {
				return h, 0, err
			}
		default:
			if err := c.skip(typ, 0); err != nil {
				return h, 0, err
			}
		}
	}
	if h.kind < 0 || h.size < 0 || h.raw < 0 {
		return h, 0, errBadHeader
	}
	return h, c.pos, nil
}

// pageStruct reads the data (5), dictionary (7) or version-2 data (8)
// page header of a page.
func (c *compact) pageStruct(h *pageHead, which int16) error {
	var last int16
	for {
		typ, id, err := c.field(last)
		if err != nil || typ == 0 {
			return err
		}
		last = id
		if typ == tTrue || typ == tFalse {
			if which == 8 && id == 7 {
				h.compressed = typ == tTrue
			}
			continue
		}
		if typ != tI32 || (which == 8 && id > 6) || (which != 8 && id > 4) {
			if err := c.skip(typ, 1); err != nil {
				return err
			}
			continue
		}
		v, err := c.i32(typ)
		if err != nil {
			return err
		}
		if which == 8 {
			switch id {
			case 1:
				h.values = int(v)
			case 4:
				h.enc = parquet.Encoding(v)
			case 5:
				h.defLen = int(v)
			case 6:
				h.repLen = int(v)
			}
			continue
		}
		switch id {
		case 1:
			h.values = int(v)
		case 2:
			h.enc = parquet.Encoding(v)
		case 3:
			h.defEnc = parquet.Encoding(v)
		}
	}
}

// checkHead refuses a header whose counts or sizes are negative.
func checkHead(h pageHead) error {
	if h.values < 0 || h.defLen < 0 || h.repLen < 0 {
		return fmt.Errorf("a page header declares a negative count")
	}
	return nil
}
