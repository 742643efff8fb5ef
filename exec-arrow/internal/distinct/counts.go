package distinct

import (
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"
)

// Counts returns the number of distinct values of each of ng groups and
// empties the set. The partitions are counted on GOMAXPROCS goroutines, a
// partition at a time each. Without spilled pairs, a partition's pairs
// from absorbed sets are each looked up in the tables before theirs and
// counted where none holds them alike. A partition with spilled pairs
// is counted from its records: those of its runs are read into one
// buffer, those held in memory copied after them, and a table sized for
// all of them at once points into the buffer and counts each pair the
// first time it meets it (countRecords); account is first asked for the
// bytes of the buffer and table (and told, negative, when they are given
// back). When account refuses them while another partition holds its
// bytes, the goroutine waits for that one to give them back and asks
// again: Counts fails only when a partition's bytes are refused with no
// other held, so it needs the memory of one partition (a 64th of the
// pairs) to finish, and uses that of one per core when it has it.
func (s *Set) Counts(ng int, account func(int64) error) ([]int64, error) {
	if s.err != nil {
		return nil, s.err
	}
	c := &counting{s: s, ng: ng, account: account, inPlace: !s.wrote()}
	if c.inPlace {
		for _, pd := range s.pending[:max(len(s.pending)-1, 0)] {
			inv := make([]int32, ng)
			for g := range inv {
				inv[g] = -1
			}
			for g, dg := range pd.remap {
				inv[dg] = int32(g)
			}
			c.inv = append(c.inv, inv)
		}
	}
	c.given = sync.NewCond(&c.mu)
	workers := min(runtime.GOMAXPROCS(0), nParts)
	outs := make([][]int64, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { outs[w] = c.work() })
	}
	wg.Wait()
	s.pending = nil // every partition of theirs was counted and emptied
	if c.err != nil {
		return nil, c.err
	}
	out := make([]int64, ng)
	for _, o := range outs {
		for g, n := range o {
			out[g] += n
		}
	}
	return out, nil
}

// counting is one Counts call shared by its goroutines: the partitions
// they take in turn (next), and the bytes they hold under mu (held: the
// partitions whose bytes account took; given signals one gave them back).
type counting struct {
	s  *Set
	ng int
	// inPlace: no pair was written, and the tables are counted where
	// they are.
	inPlace bool
	// inv[j][g] is the group of pending set j that became s's group g
	// (-1: none), for each pending set but the last.
	inv     [][]int32
	account func(int64) error
	next    atomic.Int32
	mu      sync.Mutex
	given   *sync.Cond
	held    int
	err     error
}

// work counts the partitions this goroutine takes, until none is left or
// one has failed.
func (c *counting) work() []int64 {
	out := make([]int64, c.ng)
	var buf []byte
	var table []uint64
	for i := c.next.Add(1) - 1; i < nParts; i = c.next.Add(1) - 1 {
		p := &c.s.parts[i]
		if c.inPlace {
			for _, x := range p.slots {
				if x != 0 {
					g, _ := p.record(uint32(x))
					out[g]++
				}
			}
			c.countPending(int(i), p, out)
			*p = part{}
			continue
		}
		if c.failed() {
			return nil
		}
		bytes, pairs := c.s.recordsOf(int(i))
		size := tableSize(pairs)
		extra := int64(0) // the buffer and table this partition holds
		if pairs > 0 {
			extra = max(bytes, int64(cap(buf))) + 8*int64(max(size, cap(table)))
		}
		if extra > 0 {
			if err := c.take(extra); err != nil { // held until given back below
				c.fail(err)
				return nil
			}
		}
		var err error
		if pairs > 0 {
			buf, table, err = c.s.countRecords(int(i), bytes, size, buf, table, out)
		}
		for _, pd := range c.s.pending {
			pd.parts[i] = part{}
		}
		*p = part{}
		if extra > 0 {
			c.mu.Lock()
			_ = c.account(-extra)
			c.held--
			c.given.Broadcast()
			c.mu.Unlock()
		}
		if err != nil {
			c.fail(err)
			return nil
		}
	}
	return out
}

// countPending adds to out the pairs of partition i of s's pending sets
// that p (s's own partition) and the pending sets before theirs hold
// none alike, and empties those partitions.
func (c *counting) countPending(i int, p *part, out []int64) {
	pending := c.s.pending
	for k, pd := range pending {
		q := &pd.parts[i]
		for _, x := range q.slots {
			if x == 0 {
				continue
			}
			g, v := q.record(uint32(x))
			h, dg := uint32(x>>32)^mix(g), uint32(pd.remap[g])
			held := p.has(dg, h, v)
			for j := 0; j < k && !held; j++ {
				if jg := c.inv[j][dg]; jg >= 0 {
					held = pending[j].parts[i].has(uint32(jg), h, v)
				}
			}
			if !held {
				out[dg]++
			}
		}
	}
	for _, pd := range pending {
		pd.parts[i] = part{}
	}
}

// take has account take n bytes, waiting while it refuses them and
// another partition holds its own; it fails once another goroutine has.
func (c *counting) take(n int64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.err == nil {
		err := c.account(n)
		if err == nil {
			c.held++
			return nil
		}
		if c.held == 0 {
			return err
		}
		c.given.Wait()
	}
	return c.err
}

// failed reports whether a goroutine has failed.
func (c *counting) failed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err != nil
}

// fail records the first error and wakes the goroutines waiting in take.
func (c *counting) fail(err error) {
	c.mu.Lock()
	if c.err == nil {
		c.err = err
	}
	c.given.Broadcast()
	c.mu.Unlock()
}

// wrote reports whether any pair of s was written, or is to be.
func (s *Set) wrote() bool {
	for _, r := range s.runs {
		for _, n := range r.pairs {
			if n > 0 {
				return true
			}
		}
	}
	for _, n := range s.outn {
		if n > 0 {
			return true
		}
	}
	return false
}

// recordsOf is the bytes and number of partition i's records: in its
// runs, its buffer of records to be written, its table and the pending
// sets' tables.
func (s *Set) recordsOf(i int) (int64, int) {
	var bytes int64
	pairs := 0
	for _, r := range s.runs {
		for _, e := range r.ext[i] {
			bytes += e.n
		}
		pairs += r.pairs[i]
	}
	bytes += int64(len(s.outs[i]))
	pairs += s.outn[i]
	held := func(p *part) {
		bytes += 12*int64(p.n) + p.vbytes
		pairs += p.n
	}
	held(&s.parts[i])
	for _, pd := range s.pending {
		held(&pd.parts[i])
	}
	return bytes, pairs
}

// tableSize is the slots of a table that holds n pairs at most three
// quarters full (a power of two, at least 64).
func tableSize(n int) int {
	size := 64
	for 3*size < 4*n {
		size *= 2
	}
	return size
}

// offsetBits is the bits of a slot of countRecords's table that hold
// where a record lies in its buffer; the others hold the low bits of the
// pair's tag.
const offsetBits = 40

// countRecords counts the distinct pairs of partition i, whose records
// are bytes long, into out: it reads them into buf (grown as needed) in
// the order runs, records to be written, table, pending tables, with
// every group made s's own, and walks them once with a table of size
// slots (table, reused when large enough) that points to the first
// record of each pair met. It returns the buffer and table for the next
// partition.
func (s *Set) countRecords(i int, bytes int64, size int, buf []byte, table []uint64, out []int64) ([]byte, []uint64, error) {
	if bytes >= 1<<offsetBits {
		return buf, table, fmt.Errorf("distinct set: a partition's records passed %d bytes", int64(1)<<offsetBits)
	}
	if int64(cap(buf)) < bytes {
		buf = make([]byte, 0, bytes)
	}
	buf = buf[:0]
	for _, r := range s.runs {
		for _, e := range r.ext[i] {
			at := len(buf)
			buf = buf[:at+int(e.n)]
			if _, err := r.f.ReadAt(buf[at:], e.off); err != nil && err != io.EOF {
				return buf, table, fmt.Errorf("distinct set: read a spilled partition: %w", err)
			}
			if r.remap != nil {
				regroup(buf[at:], r.remap)
			}
		}
	}
	buf = append(buf, s.outs[i]...)
	appendRecords := func(p *part, remap []int32) {
		for _, x := range p.slots {
			if x != 0 {
				g, v := p.record(uint32(x))
				k := uint32(x>>32) ^ mix(g)
				if remap != nil {
					g = uint32(remap[g])
				}
				buf = binary.LittleEndian.AppendUint32(buf, g)
				buf = binary.LittleEndian.AppendUint32(buf, k)
				buf = binary.LittleEndian.AppendUint32(buf, uint32(len(v)))
				buf = append(buf, v...)
			}
		}
	}
	appendRecords(&s.parts[i], nil)
	for _, pd := range s.pending {
		appendRecords(&pd.parts[i], pd.remap)
	}
	if int64(len(buf)) != bytes {
		return buf, table, fmt.Errorf("distinct set: a partition's records took %d bytes where %d were counted", len(buf), bytes)
	}
	if cap(table) >= size {
		table = table[:size]
		clear(table)
	} else {
		table = make([]uint64, size)
	}
	countBytes(buf, table, out)
	return buf, table, nil
}

// regroup makes the group of each record of b its remap.
func regroup(b []byte, remap []int32) {
	for len(b) >= 12 {
		g := binary.LittleEndian.Uint32(b)
		binary.LittleEndian.PutUint32(b, uint32(remap[g]))
		b = b[12+int(binary.LittleEndian.Uint32(b[8:])):]
	}
}

// countBytes adds to out[g] the pairs of the records in b that are the
// first of their (group, value): table (empty, a power of two of slots,
// room for every record) holds each first record's tag bits and offset.
// (Reading each batch's first slots ahead, as AddStrings does, was no
// faster: BenchmarkCountBytes.)
func countBytes(b []byte, table []uint64, out []int64) {
	shift := uint(32 - bits.TrailingZeros(uint(len(table))))
	mask := uint32(len(table) - 1)
	const low = 1<<(64-offsetBits) - 1
	for off := 0; off+12 <= len(b); {
		g := binary.LittleEndian.Uint32(b[off:])
		t := tag(g, binary.LittleEndian.Uint32(b[off+4:]))
		l := int(binary.LittleEndian.Uint32(b[off+8:]))
		v := b[off+12 : off+12+l]
		mine := uint64(t&low) << offsetBits
		for j := t >> shift; ; j = (j + 1) & mask {
			x := table[j]
			if x == 0 {
				table[j] = mine | uint64(off)
				out[g]++
				break
			}
			if x&^(1<<offsetBits-1) == mine {
				o := int(x & (1<<offsetBits - 1))
				if binary.LittleEndian.Uint32(b[o:]) == g && string(b[o+12:o+12+int(binary.LittleEndian.Uint32(b[o+8:]))]) == string(v) {
					break
				}
			}
		}
		off += 12 + l
	}
}
