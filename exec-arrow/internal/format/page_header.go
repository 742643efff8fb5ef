package format

import (
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/parquet"

	"sutura.dev/exec-arrow/internal/thrift"
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

// headerErr gives a Thrift reader's error the page header's words.
func headerErr(err error) error {
	switch {
	case errors.Is(err, thrift.ErrShort):
		return errShortHeader
	case errors.Is(err, thrift.ErrMalformed):
		return errBadHeader
	}
	return err
}

// parsePageHeader reads a Parquet PageHeader (Thrift, compact protocol)
// from the start of b and returns it and its length in bytes;
// errShortHeader when b ends first.
func parsePageHeader(b []byte) (pageHead, int, error) {
	h, n, err := readPageHeader(&thrift.Reader{B: b})
	return h, n, headerErr(err)
}

func readPageHeader(c *thrift.Reader) (pageHead, int, error) {
	h := pageHead{kind: -1, size: -1, raw: -1, first: -1, compressed: true}
	var last int16
	for {
		typ, id, err := c.Field(last)
		if err != nil {
			return h, 0, err
		}
		if typ == 0 {
			break
		}
		last = id
		switch {
		case id == 1 && typ == thrift.TypeI32:
			v, err := c.I32(typ)
			if err != nil {
				return h, 0, err
			}
			h.kind = int(v)
		case (id == 2 || id == 3) && typ == thrift.TypeI32:
			v, err := c.I32(typ)
			if err != nil {
				return h, 0, err
			}
			if id == 2 {
				h.size = int(v)
			} else {
				h.raw = int(v)
			}
		case (id == 5 || id == 7 || id == 8) && typ == thrift.TypeStruct:
			if err := pageStruct(c, &h, id); err != nil {
				return h, 0, err
			}
		default:
			if err := c.Skip(typ, 0); err != nil {
				return h, 0, err
			}
		}
	}
	if h.kind < 0 || h.size < 0 || h.raw < 0 {
		return h, 0, errBadHeader
	}
	return h, c.Pos, nil
}

// pageStruct reads the data (5), dictionary (7) or version-2 data (8)
// page header of a page.
func pageStruct(c *thrift.Reader, h *pageHead, which int16) error {
	var last int16
	for {
		typ, id, err := c.Field(last)
		if err != nil || typ == 0 {
			return err
		}
		last = id
		if typ == thrift.TypeTrue || typ == thrift.TypeFalse {
			if which == 8 && id == 7 {
				h.compressed = typ == thrift.TypeTrue
			}
			continue
		}
		if typ != thrift.TypeI32 || (which == 8 && id > 6) || (which != 8 && id > 4) {
			if err := c.Skip(typ, 1); err != nil {
				return err
			}
			continue
		}
		v, err := c.I32(typ)
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
