package distinct

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"sync/atomic"
)

// partBits is log2 of the partitions of a set.
const partBits = 6

const nParts = 1 << partBits

var seed = maphash.MakeSeed()

// Hash is the hash of a value's bytes: the same for the same bytes in
// every set of the process.
func Hash(v []byte) uint64 { return maphash.Bytes(seed, v) }

// HashUint64 is a hash of a fixed-width value (an integer, a code) for
// sets that hold only such values: the same for the same v everywhere.
func HashUint64(v uint64) uint64 {
	v ^= v >> 33
	v *= 0xff51afd7ed558ccd
	v ^= v >> 33
	v *= 0xc4ceb9fe1a85ec53
	v ^= v >> 33
	return v
}

// HashString is Hash of the bytes of s.
func HashString(s string) uint64 { return maphash.String(seed, s) }

// Spills counts the runs every set of the process has written, for tests
// and diagnostics.
var Spills atomic.Int64

// Set holds distinct (group, value) pairs: in memory, partitioned by the
// values' hashes, and in the runs Spill wrote.
type Set struct {
	dir   string
	parts [nParts]part
	file  *os.File // this set's spill file, unlinked
	w     *bufio.Writer
	size  int64 // bytes written to file
	runs  []run
}

// part is one partition: an open-addressing table over its entries.
type part struct {
	slots []uint32 // entry index + 1, 0 when empty
	hash  []uint64
	group []uint32
	end   []uint32 // where each entry's bytes end in arena
	arena []byte
}

// run is one spill of a set: where each partition's pairs lie in a file,
// and the groups they belong to (remap[g] is the group of the set holding
// the run; nil when it is the same).
type run struct {
	f     *os.File
	off   [nParts + 1]int64
	remap []int32
}

// New returns an empty set that spills into files created in dir.
func New(dir string) *Set { return &Set{dir: dir} }

// Add records value v (of hash h, from Hash) in group g.
func (s *Set) Add(g uint32, h uint64, v []byte) { add(&s.parts[h>>(64-partBits)], g, h, v) }

// AddString records value v (of hash h, from HashString) in group g.
func (s *Set) AddString(g uint32, h uint64, v string) { add(&s.parts[h>>(64-partBits)], g, h, v) }

// slot is where the search for (g, h) starts in a table of mask+1 slots.
func slot(g uint32, h uint64, mask uint64) uint64 {
	return (h ^ uint64(g)*0x9e3779b97f4a7c15) & mask
}

// add inserts (g, v) into p unless it holds it.
func add[T string | []byte](p *part, g uint32, h uint64, v T) {
	if 4*(len(p.hash)+1) > 3*len(p.slots) {
		p.rehash()
	}
	mask := uint64(len(p.slots) - 1)
	for i := slot(g, h, mask); ; i = (i + 1) & mask {
		e := p.slots[i]
		if e == 0 {
			p.hash = append(p.hash, h)
			p.group = append(p.group, g)
			p.arena = append(p.arena, v...)
			p.end = append(p.end, uint32(len(p.arena)))
			p.slots[i] = uint32(len(p.hash))
			return
		}
		e--
		if p.hash[e] == h && p.group[e] == g && string(p.value(int(e))) == string(v) {
			return
		}
	}
}

// value is the bytes of entry e.
func (p *part) value(e int) []byte {
	start := uint32(0)
	if e > 0 {
		start = p.end[e-1]
	}
	return p.arena[start:p.end[e]]
}

// rehash doubles the table (at least 64 slots) and places every entry.
func (p *part) rehash() {
	n := max(2*len(p.slots), 64)
	p.slots = make([]uint32, n)
	mask := uint64(n - 1)
	for e, h := range p.hash {
		i := slot(p.group[e], h, mask)
		for p.slots[i] != 0 {
			i = (i + 1) & mask
		}
		p.slots[i] = uint32(e + 1)
	}
}

func (p *part) bytes() int64 {
	return int64(4*cap(p.slots) + 8*cap(p.hash) + 4*cap(p.group) + 4*cap(p.end) + cap(p.arena))
}

// Bytes is the memory the set holds (its spilled runs are on disk).
func (s *Set) Bytes() int64 {
	var n int64
	for i := range s.parts {
		n += s.parts[i].bytes()
	}
	return n
}

// Len is the number of pairs held in memory.
func (s *Set) Len() int {
	n := 0
	for i := range s.parts {
		n += len(s.parts[i].hash)
	}
	return n
}

// Spilled reports whether the set has written pairs to disk.
func (s *Set) Spilled() bool { return len(s.runs) > 0 }

// Spill writes the pairs held in memory to the set's file, partition by
// partition, and frees their memory. It returns the bytes freed.
func (s *Set) Spill() (int64, error) {
	freed := s.Bytes()
	if s.Len() == 0 {
		return 0, nil
	}
	if s.file == nil {
		f, err := os.CreateTemp(s.dir, "sutura-distinct-*")
		if err != nil {
			return 0, fmt.Errorf("distinct set spill: %w", err)
		}
		_ = os.Remove(f.Name()) // the open file lives until it is closed
		s.file, s.w = f, bufio.NewWriterSize(f, 1<<20)
	}
	r := run{f: s.file}
	var hdr [16]byte
	for i := range s.parts {
		r.off[i] = s.size
		p := &s.parts[i]
		for e := range p.hash {
			v := p.value(e)
			binary.LittleEndian.PutUint32(hdr[0:], p.group[e])
			binary.LittleEndian.PutUint64(hdr[4:], p.hash[e])
			binary.LittleEndian.PutUint32(hdr[12:], uint32(len(v)))
			if _, err := s.w.Write(hdr[:]); err != nil {
				return 0, fmt.Errorf("distinct set spill: %w", err)
			}
			if _, err := s.w.Write(v); err != nil {
				return 0, fmt.Errorf("distinct set spill: %w", err)
			}
			s.size += int64(len(hdr) + len(v))
		}
		*p = part{}
	}
	r.off[nParts] = s.size
	if err := s.w.Flush(); err != nil {
		return 0, fmt.Errorf("distinct set spill: %w", err)
	}
	s.runs = append(s.runs, r)
	Spills.Add(1)
	return freed, nil
}

// Absorb moves every pair of src into s, src's group g becoming s's
// remap[g]; src is left empty. The partitions move one at a time, so the
// memory of both sets together grows by about one partition.
func (s *Set) Absorb(src *Set, remap []int32) {
	for i := range src.parts {
		p, d := &src.parts[i], &s.parts[i]
		for e, h := range p.hash {
			add(d, uint32(remap[p.group[e]]), h, p.value(e))
		}
		*p = part{}
	}
	for _, r := range src.runs {
		if r.remap == nil {
			r.remap = remap
		} else {
			m := make([]int32, len(r.remap))
			for g, x := range r.remap {
				m[g] = remap[x]
			}
			r.remap = m
		}
		s.runs = append(s.runs, r)
	}
	// The runs now belong to s, and with them src's file.
	src.runs, src.file, src.w, src.size = nil, nil, nil, 0
}

// Counts returns the number of distinct values of each of ng groups and
// empties the set. A partition with spilled pairs is read back and
// deduplicated in memory; account is told the bytes that takes (and,
// negative, those given back after) and may refuse them.
func (s *Set) Counts(ng int, account func(int64) error) ([]int64, error) {
	out := make([]int64, ng)
	var buf []byte
	for i := range s.parts {
		p := &s.parts[i]
		var extra int64
		if len(s.runs) > 0 {
			before := p.bytes()
			for _, r := range s.runs {
				n := r.off[i+1] - r.off[i]
				if n == 0 {
					continue
				}
				if int64(cap(buf)) < n {
					buf = make([]byte, n)
				}
				b := buf[:n]
				if _, err := r.f.ReadAt(b, r.off[i]); err != nil && err != io.EOF {
					return nil, fmt.Errorf("distinct set: read a spilled partition: %w", err)
				}
				for len(b) >= 16 {
					g := binary.LittleEndian.Uint32(b[0:])
					h := binary.LittleEndian.Uint64(b[4:])
					l := int(binary.LittleEndian.Uint32(b[12:]))
					if r.remap != nil {
						g = uint32(r.remap[g])
					}
					add(p, g, h, b[16:16+l])
					b = b[16+l:]
				}
			}
			extra = max(p.bytes()-before, 0) + int64(cap(buf))
			if err := account(extra); err != nil {
				return nil, err
			}
		}
		for _, g := range p.group {
			out[g]++
		}
		*p = part{}
		if extra > 0 {
			_ = account(-extra)
		}
	}
	return out, nil
}

// Close gives back the set's spill files.
func (s *Set) Close() {
	seen := map[*os.File]bool{}
	if s.file != nil {
		seen[s.file] = true
		_ = s.file.Close()
	}
	for _, r := range s.runs {
		if !seen[r.f] {
			seen[r.f] = true
			_ = r.f.Close()
		}
	}
	s.file, s.runs = nil, nil
}
