package distinct

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math/bits"
	"os"
	"runtime"
	"sync"
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
	size  int64    // bytes written to file
	runs  []run
	sink  uint64 // what AddStrings's probes ahead read, kept so they stay
	err   error  // the first write of pairs as they came that failed
	// given counts the pairs looked up since the last judgement, fresh
	// those of them that were new (judge).
	given, fresh int
	// writing: pairs are written as they come, unlooked-up (give).
	// direct is the index in runs of the run they are written to (-1
	// before the first is). outs holds each partition's records not yet
	// written, outn their number.
	writing bool
	direct  int
	outs    [nParts][]byte
	outn    [nParts]int
	// pending holds the partitions of the sets absorbed while none had
	// spilled, as they were, each with the groups its own became in s:
	// Counts counts their pairs where s holds none alike, without
	// moving them into s's tables first (Absorb).
	pending []pendingSet
}

// pendingSet is an absorbed set's partitions and its groups' groups in
// the set that absorbed it.
type pendingSet struct {
	parts *[nParts]part
	remap []int32
}

// part is one partition: an open-addressing table (linear probing) over
// its pairs, which lie as records in blocks that never move.
//
// A slot holds a 32-bit tag of the pair (from its hash and group) beside
// where its record lies, so a probe reads the slots alone and opens a
// record only when the tags match. The slot where a pair's search starts
// is the top bits of its tag: the table doubles by reading its slots
// alone, in order, and each lands near twice its old place. A record is
// the group (4 bytes), the value's length (1 byte, or 0xff and 4 bytes)
// and the value's bytes: 21 bytes for a 16-byte value.
type part struct {
	slots  []uint64 // tag<<32 | ref, 0 when empty (a tag is odd)
	shift  uint     // 32 - log2(len(slots))
	n      int      // pairs
	blocks [][]byte // records; a ref is block<<16 | offset
	heap   int64    // capacity of the blocks
	vbytes int64    // the values' bytes, summed (a spill's size is 12n + vbytes)
	sink   byte     // what write's reads ahead read, kept so they stay
	// doublings counts the times the table grew because pairs filled it
	// (not because room was reserved ahead): tests hold it to zero where
	// reserve should have made the room.
	doublings int
}

// blockSize is the capacity of a block of records (a longer record has a
// block of its own): the records grow a block at a time and are never
// copied, but in the first block, which grows to blockSize by doubling.
const blockSize = 1 << 16

// maxBlocks is the most blocks a partition can address.
const maxBlocks = 1 << 16

// run is one spill of a set, or the pairs it wrote as they came: where
// each partition's pairs lie in a file, and the groups they belong to
// (remap[g] is the group of the set holding the run; nil when it is the
// same). A pair is its group, the low 32 bits of its hash and its
// value's length (4 bytes each), and the value. A spill's pairs are
// distinct within it; pairs written as they came need not be.
type run struct {
	f     *os.File
	ext   [nParts][]extent
	pairs [nParts]int // the pairs each partition wrote
	remap []int32
}

// extent is where some of a partition's pairs lie in a run's file.
type extent struct{ off, n int64 }

// New returns an empty set that spills into files created in dir.
func New(dir string) *Set { return &Set{dir: dir, direct: -1} }

// mix is what a group adds to a tag.
func mix(g uint32) uint32 { return g * 0x9e3779b9 }

// tag is the 32 bits of a pair of group g and hash bits k (the low 32
// bits of the value's hash) that its slot holds and that place its
// search; bit 0 is set so that no slot in use is 0.
func tag(g, k uint32) uint32 { return (k ^ mix(g)) | 1 }

// Add records value v (of hash h, from Hash) in group g.
func (s *Set) Add(g uint32, h uint64, v []byte) {
	give(s, g, h, v)
	s.judgeDue()
}

// AddString records value v (of hash h, from HashString) in group g.
func (s *Set) AddString(g uint32, h uint64, v string) {
	give(s, g, h, v)
	s.judgeDue()
}

// AddStrings records values vs[k] (of hashes hs[k], from HashString) in
// groups gs[k], as AddString does each. Looking pairs up, it first reads
// the slot where each pair's search starts, every read independent of
// the others, so that the processor waits for their memory at once
// rather than a pair at a time; a batch of up to 128 pairs suits it.
func (s *Set) AddStrings(gs []uint32, hs []uint64, vs []string) {
	if !s.writing {
		s.ahead(gs, hs)
	}
	for k, h := range hs {
		give(s, gs[k], h, vs[k])
	}
	s.judgeDue()
}

// AddCodes records the 4-byte little-endian values of codes[k] (of hashes
// hs[k], from HashUint64) in groups gs[k], as Add does each.
func (s *Set) AddCodes(gs []uint32, hs []uint64, codes []uint32) {
	if !s.writing {
		s.ahead(gs, hs)
	}
	var b [4]byte
	for k, h := range hs {
		binary.LittleEndian.PutUint32(b[:], codes[k])
		give(s, gs[k], h, b[:])
	}
	s.judgeDue()
}

// give records (g, v), of hash h: looked up in its partition's table, or,
// while the set writes pairs as they come, appended to the partition's
// records to be written, but in partition 0, whose pairs are still looked
// up to tell whether they have come to be alike.
func give[T string | []byte](s *Set, g uint32, h uint64, v T) {
	i := h >> (64 - partBits)
	if s.writing && i != 0 {
		out(s, g, h, v)
		return
	}
	s.given++
	if add(&s.parts[i], g, uint32(h), v) {
		s.fresh++
	}
}

// judgeEvery is how many pairs a set that looks them up is given between
// judgements; sentinelEvery is how many of partition 0's a set that writes
// them is given.
const (
	judgeEvery    = 1 << 20
	sentinelEvery = judgeEvery / nParts
)

// judgeDue judges the pairs given since the last judgement once they are
// judgeEvery (sentinelEvery when writing).
func (s *Set) judgeDue() {
	if s.given >= judgeEvery || s.writing && s.given >= sentinelEvery {
		s.judge()
	}
}

// judge decides, from the pairs given since the last judgement, how the
// next are recorded: a set that looks them up starts writing them as
// they come when more than two thirds were new; a set that writes them
// looks them up again when fewer than half of partition 0's were.
func (s *Set) judge() {
	switch {
	case !s.writing && 3*s.fresh > 2*s.given:
		s.startWriting()
	case s.writing && 2*s.fresh < s.given:
		s.writing = false
	}
	s.given, s.fresh = 0, 0
}

// ahead reads the first slot of each pair's search.
func (s *Set) ahead(gs []uint32, hs []uint64) {
	var sum uint64
	gs = gs[:len(hs)]
	for k, h := range hs {
		p := &s.parts[h>>(64-partBits)]
		if len(p.slots) > 0 {
			sum += p.slots[tag(gs[k], uint32(h))>>p.shift]
		}
	}
	s.sink += sum
}

// add inserts (g, v), of hash bits k, into p unless it holds it, and
// reports whether it did.
func add[T string | []byte](p *part, g, k uint32, v T) bool {
	if 4*(p.n+1) > 3*len(p.slots) {
		p.rehash()
	}
	t := tag(g, k)
	mask := uint32(len(p.slots) - 1)
	for i := t >> p.shift; ; i = (i + 1) & mask {
		x := p.slots[i]
		if x == 0 {
			p.slots[i] = uint64(t)<<32 | uint64(push(p, g, v))
			return true
		}
		if uint32(x>>32) == t {
			if rg, rv := p.record(uint32(x)); rg == g && string(rv) == string(v) {
				return false
			}
		}
	}
}

// has reports whether p holds (g, v), of hash bits k.
func (p *part) has(g, k uint32, v []byte) bool {
	if p.n == 0 {
		return false
	}
	t := tag(g, k)
	mask := uint32(len(p.slots) - 1)
	for i := t >> p.shift; ; i = (i + 1) & mask {
		x := p.slots[i]
		if x == 0 {
			return false
		}
		if uint32(x>>32) == t {
			if rg, rv := p.record(uint32(x)); rg == g && string(rv) == string(v) {
				return true
			}
		}
	}
}

// record is the group and value of the record at ref.
func (p *part) record(ref uint32) (uint32, []byte) {
	b := p.blocks[ref>>16][ref&0xffff:]
	g := binary.LittleEndian.Uint32(b)
	n, h := uint32(b[4]), uint32(5)
	if n == 0xff {
		n, h = binary.LittleEndian.Uint32(b[5:]), 9
	}
	return g, b[h : h+n]
}

// push appends the record (g, v) and returns its ref.
func push[T string | []byte](p *part, g uint32, v T) uint32 {
	size := 5 + len(v)
	if len(v) >= 0xff {
		size += 4
	}
	k := len(p.blocks) - 1
	if k < 0 || cap(p.blocks[k])-len(p.blocks[k]) < size {
		switch {
		case k == 0 && len(p.blocks[0])+size <= blockSize: // the first block doubles
			c := max(2*cap(p.blocks[0]), len(p.blocks[0])+size)
			b := make([]byte, len(p.blocks[0]), min(c, blockSize))
			copy(b, p.blocks[0])
			p.heap += int64(cap(b) - cap(p.blocks[0]))
			p.blocks[0] = b
		default:
			if len(p.blocks) == maxBlocks {
				panic("distinct: a partition passed its 4 GiB of records")
			}
			c := blockSize
			if k < 0 {
				c = 1 << 10
			}
			p.blocks = append(p.blocks, make([]byte, 0, max(c, size)))
			k++
			p.heap += int64(cap(p.blocks[k]))
		}
	}
	b := p.blocks[k]
	off := len(b)
	b = binary.LittleEndian.AppendUint32(b, g)
	if len(v) < 0xff {
		b = append(b, byte(len(v)))
	} else {
		b = append(b, 0xff)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(v)))
	}
	p.blocks[k] = append(b, v...)
	p.n++
	p.vbytes += int64(len(v))
	return uint32(k)<<16 | uint32(off)
}

// rehash doubles the table (at least 64 slots) and places every slot
// again; it reads only the slots.
func (p *part) rehash() {
	p.doublings++
	p.resize(max(2*len(p.slots), 64))
}

// reserve makes room for n pairs in all without a rehash. Pairs met in
// the order of another table's slots (a spilled run, a worker's set being
// absorbed) come in the order of their tags' top bits, where each search
// starts: inserted so into a smaller table that doubles as it fills, they
// pile up in runs that every later search walks — a distinct count over
// 100 M rows spent 110 s of CPU there reading its spills back. In a table
// at least as large as theirs, they land in order near where they start.
func (p *part) reserve(n int) {
	size := 64
	for 3*size < 4*n {
		size *= 2
	}
	if size > len(p.slots) {
		p.resize(size)
	}
}

// resize moves the slots into a table of n slots (a power of two).
func (p *part) resize(n int) {
	old := p.slots
	p.slots = make([]uint64, n)
	// A large table comes from the system untouched: a probe's read
	// would map its pages to the zero page and the write that follows
	// would copy it and flush the TLB of every CPU. Writing each page
	// first maps it once.
	for i := 0; i < n; i += 512 {
		p.slots[i] = 0
	}
	p.shift = uint(32 - bits.TrailingZeros(uint(n)))
	mask := uint32(n - 1)
	for _, x := range old {
		if x == 0 {
			continue
		}
		i := uint32(x>>32) >> p.shift
		for p.slots[i] != 0 {
			i = (i + 1) & mask
		}
		p.slots[i] = x
	}
}

// each calls f with the group, hash bits and value of every pair of p.
func (p *part) each(f func(g, k uint32, v []byte)) {
	for _, x := range p.slots {
		if x != 0 {
			g, v := p.record(uint32(x))
			f(g, uint32(x>>32)^mix(g), v)
		}
	}
}

func (p *part) bytes() int64 {
	return int64(8*cap(p.slots)) + p.heap + int64(24*cap(p.blocks))
}

// Bytes is the memory the set holds (its spilled runs are on disk).
func (s *Set) Bytes() int64 {
	var n int64
	for i := range s.parts {
		n += s.parts[i].bytes()
	}
	for _, pd := range s.pending {
		n += int64(4 * cap(pd.remap))
		for i := range pd.parts {
			n += pd.parts[i].bytes()
		}
	}
	for _, o := range s.outs {
		n += int64(cap(o))
	}
	return n
}

// Len is the number of pairs held in memory (a pair absorbed from
// another set counted as often as the sets hold it).
func (s *Set) Len() int {
	n := 0
	for i := range s.parts {
		n += s.parts[i].n
	}
	for _, pd := range s.pending {
		for i := range pd.parts {
			n += pd.parts[i].n
		}
	}
	return n
}

// Spill writes the pairs held in memory to the set's file and frees their
// memory. It returns the bytes freed. Each partition's place in the file
// is known before it is written (12 bytes and the value per pair), so the
// partitions are written on GOMAXPROCS goroutines, a partition at a time
// each, through a buffer of 1 MiB per goroutine. A set that looks its
// pairs up judges those given since the last judgement (judge).
func (s *Set) Spill() (int64, error) {
	if s.err != nil {
		return 0, s.err
	}
	freed := s.Bytes()
	if s.Len() == 0 && s.direct < 0 {
		return 0, nil
	}
	if err := s.open(); err != nil {
		return 0, err
	}
	if err := s.flushOuts(); err != nil {
		return 0, err
	}
	if err := s.spillParts(&s.parts, nil); err != nil {
		return 0, err
	}
	for _, pd := range s.pending {
		if err := s.spillParts(pd.parts, pd.remap); err != nil {
			return 0, err
		}
	}
	s.pending = nil
	if !s.writing && s.given > 0 {
		s.judge()
	}
	return freed - s.Bytes(), s.err
}

// open creates the set's spill file, unlinked, unless it has one.
func (s *Set) open() error {
	if s.file != nil {
		return nil
	}
	f, err := os.CreateTemp(s.dir, "sutura-distinct-*")
	if err != nil {
		return fmt.Errorf("distinct set spill: %w", err)
	}
	_ = os.Remove(f.Name()) // the open file lives until it is closed
	s.file = f
	return nil
}

// startWriting has the set write the pairs it is given as they come, into
// its direct run (docs/performance.md, "Distinct pairs written as they
// come"): when most are new, looking them up saves little of what it
// costs, and Counts finds the pairs alike when it reads them back. A set
// that cannot open its file keeps looking them up.
func (s *Set) startWriting() {
	if err := s.open(); err != nil {
		return
	}
	if s.direct < 0 {
		s.runs = append(s.runs, run{f: s.file})
		s.direct = len(s.runs) - 1
	}
	s.writing = true
}

// outSize is the bytes of records a partition of a set that writes its
// pairs as they come holds before it writes them.
const outSize = 64 << 10

// out appends the record of (g, v), of hash h, to its partition's
// records to be written, and writes them once they pass outSize. After a
// write has failed it drops the record: the counts fail (s.err), and the
// buffers do not grow.
func out[T string | []byte](s *Set, g uint32, h uint64, v T) {
	if s.err != nil {
		return
	}
	i := h >> (64 - partBits)
	o := s.outs[i]
	if o == nil {
		o = make([]byte, 0, outSize)
	}
	o = binary.LittleEndian.AppendUint32(o, g)
	o = binary.LittleEndian.AppendUint32(o, uint32(h))
	o = binary.LittleEndian.AppendUint32(o, uint32(len(v)))
	s.outs[i] = append(o, v...)
	s.outn[i]++
	if len(s.outs[i]) >= outSize {
		s.writeOut(int(i))
	}
}

// writeOut writes partition i's records to the set's file, as an extent
// of its direct run. A failure is kept for Spill and Counts to return:
// the pairs it loses would make the counts wrong.
func (s *Set) writeOut(i int) {
	o := s.outs[i]
	if len(o) == 0 || s.err != nil {
		return
	}
	if _, err := s.file.WriteAt(o, s.size); err != nil {
		s.err = fmt.Errorf("distinct set spill: %w", err)
		return
	}
	r := &s.runs[s.direct]
	r.ext[i] = append(r.ext[i], extent{s.size, int64(len(o))})
	r.pairs[i] += s.outn[i]
	s.size += int64(len(o))
	s.outs[i], s.outn[i] = o[:0], 0
}

// flushOuts writes every partition's records to be written and frees
// their buffers.
func (s *Set) flushOuts() error {
	if s.direct < 0 {
		return nil
	}
	for i := range s.outs {
		s.writeOut(i)
		s.outs[i] = nil
	}
	return s.err
}

// spillParts writes parts to s's file as one run whose groups become
// remap's (nil: they are s's) and empties them.
func (s *Set) spillParts(parts *[nParts]part, remap []int32) error {
	held := 0
	for i := range parts {
		held += parts[i].n
	}
	if held == 0 {
		return nil
	}
	r := run{f: s.file, remap: remap}
	for i := range parts {
		p := &parts[i]
		r.pairs[i] = p.n
		if n := 12*int64(p.n) + p.vbytes; n > 0 {
			r.ext[i] = []extent{{s.size, n}}
			s.size += n
		}
	}
	var next atomic.Int32
	errs := make([]error, min(runtime.GOMAXPROCS(0), nParts))
	var wg sync.WaitGroup
	for w := range errs {
		wg.Go(func() {
			buf := make([]byte, 0, 1<<20)
			for i := next.Add(1) - 1; i < nParts && errs[w] == nil; i = next.Add(1) - 1 {
				if r.pairs[i] > 0 {
					errs[w] = parts[i].write(s.file, r.ext[i][0].off, buf)
				}
				parts[i] = part{}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return fmt.Errorf("distinct set spill: %w", err)
		}
	}
	s.runs = append(s.runs, r)
	Spills.Add(1)
	return nil
}

// write writes p's pairs (group, hash bits, length, value) to f from off
// on, through buf. A slot's record lies anywhere in the blocks: the refs
// of 64 slots are gathered first and their records read after, so that
// the misses of many are in flight at once.
func (p *part) write(f *os.File, off int64, buf []byte) error {
	var refs [64]uint64
	n, start, want := 0, off, 12*int64(p.n)+p.vbytes
	var sink byte
	emit := func() error {
		for _, x := range refs[:n] {
			sink += p.blocks[uint32(x)>>16][uint32(x)&0xffff]
		}
		for _, x := range refs[:n] {
			g, v := p.record(uint32(x))
			if len(buf)+12+len(v) > cap(buf) && len(buf) > 0 {
				if _, err := f.WriteAt(buf, off); err != nil {
					return err
				}
				off += int64(len(buf))
				buf = buf[:0]
			}
			buf = binary.LittleEndian.AppendUint32(buf, g)
			buf = binary.LittleEndian.AppendUint32(buf, uint32(x>>32)^mix(g))
			buf = binary.LittleEndian.AppendUint32(buf, uint32(len(v)))
			buf = append(buf, v...)
		}
		n = 0
		return nil
	}
	for _, x := range p.slots {
		if x == 0 {
			continue
		}
		refs[n] = x
		n++
		if n == len(refs) {
			if err := emit(); err != nil {
				return err
			}
		}
	}
	if err := emit(); err != nil {
		return err
	}
	p.sink = sink
	if len(buf) > 0 {
		if _, err := f.WriteAt(buf, off); err != nil {
			return err
		}
		off += int64(len(buf))
	}
	if got := off - start; got != want {
		return fmt.Errorf("a partition wrote %d bytes where it counted %d", got, want)
	}
	return nil
}

// Absorb takes every pair of src into s, src's group g becoming s's
// remap[g], and leaves src empty. Pairs held in memory are not moved:
// src's partitions are kept as they are beside s's (pending), and Counts
// counts a pair of theirs only where s and the sets absorbed before hold
// none alike: moving them grew s's tables and copied every record, a
// fifth of the CPU of a distinct count over 8 M session ids
// (docs/performance.md, "Distinct sets absorbed without moving"). That
// needs remap one-to-one, as the groups of two workers are; a remap that
// is not has the pairs moved at once, as are src's spilled runs.
func (s *Set) Absorb(src *Set, remap []int32) {
	if err := src.flushOuts(); err != nil && s.err == nil {
		s.err = err
	}
	src.direct, src.writing = -1, false
	if !oneToOne(remap) {
		s.absorbNow(src, remap)
	} else {
		for _, pd := range src.pending {
			m := make([]int32, len(pd.remap))
			for g, x := range pd.remap {
				m[g] = remap[x]
			}
			s.pending = append(s.pending, pendingSet{parts: pd.parts, remap: m})
		}
		if held := src.parts; src.Len() > 0 {
			s.pending = append(s.pending, pendingSet{parts: &held, remap: remap})
		}
		src.parts, src.pending = [nParts]part{}, nil
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
	src.runs, src.file, src.size = nil, nil, 0
}

// oneToOne reports whether no two groups of remap become one, in a pass
// and a bitset of the groups (a map cost more than the merge it spares
// once the groups are many). A negative group, which no merge makes, is
// taken as not one-to-one: its pairs are moved at once, as before.
func oneToOne(remap []int32) bool {
	top := int32(-1)
	for _, g := range remap {
		if g < 0 {
			return false
		}
		top = max(top, g)
	}
	seen := make([]uint64, top/64+1)
	for _, g := range remap {
		if seen[g>>6]&(1<<(g&63)) != 0 {
			return false
		}
		seen[g>>6] |= 1 << (g & 63)
	}
	return true
}

// absorbNow moves every pair src holds in memory (its pending sets' too)
// into s's tables. The partitions move on GOMAXPROCS goroutines, a
// partition at a time each, so the memory of both sets together grows by
// about that many partitions.
func (s *Set) absorbNow(src *Set, remap []int32) {
	var next atomic.Int32
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), nParts) {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < nParts; i = next.Add(1) - 1 {
				d := &s.parts[i]
				src.pendingInto(d, int(i), remap)
				p := &src.parts[i]
				d.reserve(d.n + p.n)
				p.each(func(g, k uint32, v []byte) { add(d, uint32(remap[g]), k, v) })
				*p = part{}
			}
		})
	}
	wg.Wait()
	src.pending = nil
}

// pendingInto moves partition i of s's pending sets into d, their groups
// becoming then remap's (nil: s's own).
func (s *Set) pendingInto(d *part, i int, remap []int32) {
	n := d.n
	for _, pd := range s.pending {
		n += pd.parts[i].n
	}
	d.reserve(n)
	for _, pd := range s.pending {
		p := &pd.parts[i]
		p.each(func(g, k uint32, v []byte) {
			dg := pd.remap[g]
			if remap != nil {
				dg = remap[dg]
			}
			add(d, uint32(dg), k, v)
		})
		*p = part{}
	}
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
