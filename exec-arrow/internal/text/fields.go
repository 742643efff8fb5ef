package text

import "unsafe"

// Fields holds a block's wanted fields column by column. With Copy set,
// Put copies a field's bytes, while the record that holds them is still
// in the processor's cache, onto the end of its column's arena, and Seal
// then makes the fields' strings over the arenas: a pass over one column
// (a builder parsing it, a selection reading it) so reads contiguous
// memory, where over fields left in place it reads one field per record
// strewn over a block of megabytes. That pays on long records (NDJSON)
// and not on short ones (CSV), which leave Copy unset: Put keeps a view
// of the block (docs/performance.md, "Text fields column by column").
//
// A Fields is reused block after block by one worker; its strings are
// valid until the next Reset (and, without Copy, while the block is).
type Fields struct {
	Copy bool
	// Held is what of Copied the owner has accounted (the worker meters
	// what a block grew it by against the question's working memory).
	Held   int64
	n      int
	only   []bool // only[s]: slot s is read only for its validity
	arena  [][]byte
	ends   []int32 // ends[s*n+k]: the end of record k's field in arena[s]
	fields []string
}

// Reset empties f for n records of len(validOnly) fields each; a field of
// slot s where validOnly[s] is read only for whether it is null, so Put
// keeps one byte of it.
func (f *Fields) Reset(n int, validOnly []bool) {
	slots := len(validOnly)
	f.n, f.only = n, validOnly
	if cap(f.fields) < n*slots {
		f.fields = make([]string, n*slots)
	}
	f.fields = f.fields[:n*slots]
	if f.Copy {
		if cap(f.ends) < n*slots {
			f.ends = make([]int32, n*slots)
		}
		f.ends = f.ends[:n*slots]
	}
	for len(f.arena) < slots {
		f.arena = append(f.arena, nil)
	}
	f.arena = f.arena[:slots]
	for s := range f.arena {
		f.arena[s] = f.arena[s][:0]
	}
}

// Put sets field s of record k to v ("": null). Each slot's records are
// put in order, each once.
func (f *Fields) Put(k, s int, v string) {
	if f.only[s] && len(v) > 1 {
		v = v[:1]
	}
	if !f.Copy {
		f.fields[s*f.n+k] = v
		return
	}
	a := append(f.arena[s], v...)
	f.arena[s] = a
	f.ends[s*f.n+k] = int32(len(a))
}

// Seal makes the strings of every field put; Column is valid after it.
func (f *Fields) Seal() {
	if !f.Copy {
		return
	}
	for s, a := range f.arena {
		ends := f.ends[s*f.n : (s+1)*f.n]
		col := f.fields[s*f.n : (s+1)*f.n]
		start := int32(0)
		for k, e := range ends {
			if e == start {
				col[k] = ""
			} else {
				col[k] = unsafe.String(&a[start], int(e-start))
			}
			start = e
		}
	}
}

// Column is field s of every record, in record order.
func (f *Fields) Column(s int) []string { return f.fields[s*f.n : (s+1)*f.n] }

// Copied is the capacity copying takes: the arenas and their offsets.
// (The strings themselves, one per field of a block, are a worker's
// scratch with or without Copy.)
func (f *Fields) Copied() int64 {
	n := int64(cap(f.ends)) * 4
	for _, a := range f.arena {
		n += int64(cap(a))
	}
	return n
}
