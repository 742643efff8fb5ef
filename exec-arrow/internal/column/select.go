package column

// Row selection over a batch's values, branch-free: each row is written
// at the next free place of the selection, which moves past it only when
// it passes (a branch on values in no order would be a coin toss per
// row).

// SelectCodes writes to sel (as long as idx) the rows lo+i whose code
// idx[i] passes by res, and returns how many. It takes four rows a step,
// each written at the step's next free place (half the instructions of a
// row a step).
func SelectCodes[I Index](sel []int32, idx []I, lo int, res []bool) int {
	j, i := 0, 0
	for ; i+4 <= len(idx); i += 4 {
		c, w, r := (*[4]I)(idx[i:i+4]), (*[4]int32)(sel[j:j+4]), int32(lo+i)
		w[0] = r
		a := BitOf(res[c[0]])
		w[a&3] = r + 1
		a += BitOf(res[c[1]])
		w[a&3] = r + 2
		a += BitOf(res[c[2]])
		w[a&3] = r + 3
		j += a + BitOf(res[c[3]])
	}
	for ; i < len(idx); i++ {
		sel[j] = int32(lo + i)
		j += BitOf(res[idx[i]])
	}
	return j
}

// SelectTimes writes to sel the rows lo+i whose time ints[i] falls in
// the range of length microseconds from first (and is not null by
// valid), and returns how many.
func SelectTimes(sel []int32, ints []int64, lo int, first int64, length uint64, valid []byte) int {
	j := 0
	if valid != nil {
		for i, us := range ints {
			r := lo + i
			sel[j] = int32(r)
			j += BitOf(uint64(us-first) < length) & int(valid[r>>3]>>(r&7)&1)
		}
		return j
	}
	for i, us := range ints {
		sel[j] = int32(lo + i)
		j += BitOf(uint64(us-first) < length)
	}
	return j
}

// BitOf is 1 for true and 0 for false, compiled without a branch.
func BitOf(b bool) int {
	var i int
	if b {
		i = 1
	}
	return i
}

// Gather writes src[rows[k]] to dst[k] (dst as long as rows) and returns
// dst. Rows read far apart (a sparse selection of a large column) miss
// the caches; a loop that does nothing else keeps many of those reads in
// flight, where a loop using each value as it comes waits on them.
func Gather[T any](dst, src []T, rows []int32) []T {
	dst = dst[:len(rows)]
	for k, r := range rows {
		dst[k] = src[r]
	}
	return dst
}

// GatherInts sets dst[k] to the value of row rows[k] of integer column c
// (0 when c holds no values: every row null), whichever its width.
func GatherInts(dst []int64, c *Column, rows []int32) []int64 {
	dst = dst[:len(rows)]
	switch {
	case c.Ints32 != nil:
		for k, r := range rows {
			dst[k] = int64(c.Ints32[r])
		}
	case len(c.Ints) >= c.N:
		Gather(dst, c.Ints, rows)
	default:
		clear(dst)
	}
	return dst
}

// RangeDays keeps, in place, the rows sel[k] whose day (days[r], less
// start) falls in the first span days and is not null by valid, with
// their buckets (of the day's offset), and returns how many. Branch-free,
// as the kernel's range tests.
func RangeDays[D DayValue](sel, bucket []int32, days []D, start int32, span uint32, of []int32, valid []byte) int {
	j := 0
	if valid == nil { // a loop of its own: a test of valid a row slowed the whole by a quarter
		for _, r := range sel {
			o := int32(days[r]) - start
			in := BitOf(uint32(o) < span)
			sel[j], bucket[j] = r, of[o&-int32(in)]
			j += in
		}
		return j
	}
	for _, r := range sel {
		o := int32(days[r]) - start
		in := BitOf(uint32(o) < span)
		if valid != nil {
			in &= int(valid[r>>3] >> (r & 7) & 1)
		}
		sel[j], bucket[j] = r, of[o&-int32(in)]
		j += in
	}
	return j
}

// InsideDays selects every row lo+i of days (all in the range and none
// null), with the bucket of its day less start, and returns how many.
func InsideDays[D DayValue](sel, bucket []int32, days []D, lo int, start int32, of []int32) int {
	for i, d := range days {
		sel[i], bucket[i] = int32(lo+i), of[int32(d)-start]
	}
	return len(days)
}

// SelectDays writes to sel the rows lo+i whose day days[i] (less start)
// falls in the first span days and is not null by valid, with their
// buckets, and returns how many. Branch-free.
func SelectDays[D DayValue](sel, bucket []int32, days []D, lo int, start int32, span uint32, of []int32, valid []byte) int {
	j := 0
	if valid == nil { // a loop of its own: a test of valid a row slowed the whole by a quarter
		for i, d := range days {
			o := int32(d) - start
			in := BitOf(uint32(o) < span)
			sel[j], bucket[j] = int32(lo+i), of[o&-int32(in)]
			j += in
		}
		return j
	}
	for i, d := range days {
		o, r := int32(d)-start, lo+i
		in := BitOf(uint32(o) < span)
		if valid != nil {
			in &= int(valid[r>>3] >> (r & 7) & 1)
		}
		sel[j], bucket[j] = int32(r), of[o&-int32(in)]
		j += in
	}
	return j
}

// BucketDays sets bucket[k] to the bucket of row sel[k]'s day (less
// start), gathering the days a block at a time first, as the times are.
func BucketDays[D DayValue](bucket, sel []int32, days []D, start int32, of []int32) {
	var got [256]D
	for k0 := 0; k0 < len(sel); k0 += len(got) {
		rows := sel[k0:min(k0+len(got), len(sel))]
		for k, d := range Gather(got[:], days, rows) {
			bucket[k0+k] = of[int32(d)-start]
		}
	}
}
