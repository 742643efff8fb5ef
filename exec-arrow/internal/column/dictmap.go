package column

// DictMap caches a number per dictionary index of one column's dictionary,
// computed the first time a row needs it (-1 until then): the outcome of a
// predicate, a worker's code of the value, the joined row. A streamed batch
// brings a new dictionary; a cached column keeps its own for every batch.
type DictMap struct {
	col  uint64
	Vals []int32 // per dictionary index: the number, -1 until computed
}

// Reset prepares m for c's dictionary, keeping what it holds when it is
// already for c.
func (m *DictMap) Reset(c *Column) {
	if m.col == c.ID && len(m.Vals) == len(c.Dict) {
		return
	}
	m.col = c.ID
	if cap(m.Vals) < len(c.Dict) {
		m.Vals = make([]int32, len(c.Dict))
	}
	m.Vals = m.Vals[:len(c.Dict)]
	for i := range m.Vals {
		m.Vals[i] = -1
	}
}
