package thrift

import (
	"errors"
	"testing"
)

// sample is a struct: field 1 an i32 of 5, field 2 the binary "ab",
// field 3 a list of two i32, field 4 a struct holding a true boolean.
var sample = []byte{0x15, 0x0a, 0x18, 0x02, 'a', 'b', 0x19, 0x25, 0x02, 0x04, 0x1c, 0x11, 0x00, 0x00}

// readSample reads sample's fields, skipping all but the first.
func readSample(b []byte) (int32, int, error) {
	r := &Reader{B: b}
	var v int32
	var last int16
	for {
		typ, id, err := r.Field(last)
		if err != nil {
			return 0, 0, err
		}
		if typ == 0 {
			return v, r.Pos, nil
		}
		last = id
		if id == 1 {
			if v, err = r.I32(typ); err != nil {
				return 0, 0, err
			}
			continue
		}
		if err := r.Skip(typ, 0); err != nil {
			return 0, 0, err
		}
	}
}

func TestReaderReadsAndSkips(t *testing.T) {
	v, n, err := readSample(sample)
	if err != nil || v != 5 || n != len(sample) {
		t.Fatalf("read %d over %d bytes (%v), want 5 over %d", v, n, err, len(sample))
	}
	for k := range len(sample) {
		if _, _, err := readSample(sample[:k]); !errors.Is(err, ErrShort) {
			t.Errorf("a prefix of %d bytes: %v, want ErrShort", k, err)
		}
	}
}

func TestReaderRefusesWhatIsNotCompact(t *testing.T) {
	// An i32 field whose value does not fit in 32 bits.
	r := &Reader{B: []byte{0x80, 0x80, 0x80, 0x80, 0x20}}
	if _, err := r.I32(TypeI32); !errors.Is(err, ErrMalformed) {
		t.Errorf("an i32 past 32 bits: %v", err)
	}
	// A type the protocol does not have.
	if err := (&Reader{B: []byte{0}}).Skip(13, 0); !errors.Is(err, ErrMalformed) {
		t.Errorf("type 13: %v", err)
	}
	// Structures nested past the bound.
	deep := make([]byte, 0, 40)
	for range 20 {
		deep = append(deep, 0x1c) // field 1, a struct
	}
	if err := (&Reader{B: deep}).Skip(TypeStruct, 0); !errors.Is(err, ErrMalformed) {
		t.Errorf("20 nested structures: %v", err)
	}
	// A list that claims more elements than bytes are left.
	if err := (&Reader{B: []byte{0xf5, 0xff, 0xff, 0x03}}).Skip(TypeList, 0); !errors.Is(err, ErrShort) {
		t.Errorf("a list longer than its bytes: %v", err)
	}
}
