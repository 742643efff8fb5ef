// Package thrift reads Apache Thrift's compact protocol from bytes in
// memory: field headers, integers, and skipping any value a reader does
// not want, nested at most 16 deep, each length checked against the
// bytes left. The Parquet page-header parser (package format) reads with
// it.
package thrift

import (
	"errors"
	"math"
)

// ErrShort is bytes that end before the value being read does.
var ErrShort = errors.New("the bytes end inside a Thrift value")

// ErrMalformed is bytes that are not the compact protocol's.
var ErrMalformed = errors.New("a Thrift value is malformed")

// The compact protocol's types, as a field header gives them (0 ends a
// structure).
const (
	TypeTrue   = 1
	TypeFalse  = 2
	TypeByte   = 3
	TypeI16    = 4
	TypeI32    = 5
	TypeI64    = 6
	TypeDouble = 7
	TypeBinary = 8
	TypeList   = 9
	TypeSet    = 10
	TypeMap    = 11
	TypeStruct = 12
)

// Reader reads Thrift's compact protocol from the bytes B, from Pos on.
type Reader struct {
	B   []byte
	Pos int
}

// Byte reads one byte.
func (r *Reader) Byte() (byte, error) {
	if r.Pos >= len(r.B) {
		return 0, ErrShort
	}
	v := r.B[r.Pos]
	r.Pos++
	return v, nil
}

// Uvarint reads an unsigned varint.
func (r *Reader) Uvarint() (uint64, error) {
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		b, err := r.Byte()
		if err != nil {
			return 0, err
		}
		v |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return v, nil
		}
	}
	return 0, ErrMalformed
}

// Varint reads a zigzag-encoded varint.
func (r *Reader) Varint() (int64, error) {
	u, err := r.Uvarint()
	return int64(u>>1) ^ -int64(u&1), err
}

// I32 reads an integer field that must fit in 32 bits.
func (r *Reader) I32(typ byte) (int32, error) {
	if typ != TypeI32 && typ != TypeI16 && typ != TypeByte {
		return 0, ErrMalformed
	}
	if typ == TypeByte {
		b, err := r.Byte()
		return int32(int8(b)), err
	}
	v, err := r.Varint()
	if err == nil && (v < math.MinInt32 || v > math.MaxInt32) {
		err = ErrMalformed
	}
	return int32(v), err
}

// Field reads a field header: its type (0 at the struct's end) and id.
func (r *Reader) Field(last int16) (typ byte, id int16, err error) {
	b, err := r.Byte()
	if err != nil || b == 0 {
		return 0, 0, err
	}
	typ = b & 0x0f
	if d := int16(b >> 4); d != 0 {
		return typ, last + d, nil
	}
	v, err := r.Varint()
	if err == nil && (v < math.MinInt16 || v > math.MaxInt16) {
		err = ErrMalformed
	}
	return typ, int16(v), err
}

// Skip skips a value of type typ (depth: the structures it is nested in).
func (r *Reader) Skip(typ byte, depth int) error {
	if depth > 16 {
		return ErrMalformed
	}
	switch typ {
	case TypeTrue, TypeFalse:
		return nil
	case TypeByte:
		_, err := r.Byte()
		return err
	case TypeI16, TypeI32, TypeI64:
		_, err := r.Uvarint()
		return err
	case TypeDouble:
		return r.advance(8)
	case TypeBinary:
		n, err := r.Uvarint()
		if err != nil {
			return err
		}
		if n > math.MaxInt32 {
			return ErrMalformed
		}
		return r.advance(int(n))
	case TypeList, TypeSet:
		b, err := r.Byte()
		if err != nil {
			return err
		}
		n, elem := uint64(b>>4), b&0x0f
		if n == 15 {
			if n, err = r.Uvarint(); err != nil {
				return err
			}
		}
		return r.skipN(n, []byte{elem}, depth)
	case TypeMap:
		n, err := r.Uvarint()
		if err != nil || n == 0 {
			return err
		}
		kv, err := r.Byte()
		if err != nil {
			return err
		}
		return r.skipN(n, []byte{kv >> 4, kv & 0x0f}, depth)
	case TypeStruct:
		var last int16
		for {
			t, id, err := r.Field(last)
			if err != nil || t == 0 {
				return err
			}
			if err := r.Skip(t, depth+1); err != nil {
				return err
			}
			last = id
		}
	}
	return ErrMalformed
}

// skipN skips n elements of each of types (a list's, or a map's key and
// value); a boolean element takes a byte.
func (r *Reader) skipN(n uint64, types []byte, depth int) error {
	if n > uint64(len(r.B)-r.Pos) {
		return ErrShort // every element takes at least a byte
	}
	for range n {
		for _, t := range types {
			var err error
			if t == TypeTrue || t == TypeFalse {
				_, err = r.Byte()
			} else {
				err = r.Skip(t, depth+1)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

func (r *Reader) advance(n int) error {
	if n > len(r.B)-r.Pos {
		return ErrShort
	}
	r.Pos += n
	return nil
}
