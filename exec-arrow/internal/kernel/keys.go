package kernel

import (
	"strings"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/groups"
	"sutura.dev/exec-arrow/internal/i128"
)

// codebook numbers the distinct values of a streamed column as one worker
// meets them: code 0 is null, 1+k the k-th value met. It is the streaming
// counterpart of a cached column's codeSet: it holds only the values the
// question's rows carry, never a dictionary of the whole column, and it
// grows as batches arrive. Text values are hashed by their bytes.
type codebook struct {
	typ   domain.ColumnType
	strs  map[string]int32
	svals []string
	ints  map[int64]int32
	ivals []int64
	flts  map[float64]int32
	fvals []float64
	size  int64 // bytes held, estimated
}

func newCodebook(typ domain.ColumnType) *codebook {
	b := &codebook{typ: typ}
	switch typ {
	case domain.TypeText, domain.TypeDecimal:
		// Decimals are numbered by their canonical text: batches may hold
		// them at different scales.
		b.strs = map[string]int32{}
	case domain.TypeFloat:
		b.flts = map[float64]int32{}
	default:
		b.ints = map[int64]int32{}
	}
	return b
}

// card is the number of values coded so far.
func (b *codebook) card() int {
	switch {
	case b.strs != nil:
		return len(b.svals)
	case b.flts != nil:
		return len(b.fvals)
	}
	return len(b.ivals)
}

// text returns the code of s, adding it (a copy: s may alias a batch's
// buffers) when new.
func (b *codebook) text(s string) int32 {
	if k, ok := b.strs[s]; ok {
		return k
	}
	s = strings.Clone(s)
	b.svals = append(b.svals, s)
	k := int32(len(b.svals))
	b.strs[s] = k
	b.size += int64(len(s)) + 64
	return k
}

// int returns the code of an integer, date (days), timestamp (micros) or
// boolean (0/1) value, adding it when new.
func (b *codebook) int(v int64) int32 {
	if k, ok := b.ints[v]; ok {
		return k
	}
	b.ivals = append(b.ivals, v)
	k := int32(len(b.ivals))
	b.ints[v] = k
	b.size += 40
	return k
}

// float returns the code of a real, one code for +0 and -0.
func (b *codebook) float(v float64) int32 {
	if v == 0 {
		v = 0
	}
	if k, ok := b.flts[v]; ok {
		return k
	}
	b.fvals = append(b.fvals, v)
	k := int32(len(b.fvals))
	b.flts[v] = k
	b.size += 40
	return k
}

// Cell is the value of code k (k ≥ 1).
func (b *codebook) Cell(k int32) domain.Cell {
	i := k - 1
	switch b.typ {
	case domain.TypeText:
		return domain.Text(b.svals[i])
	case domain.TypeFloat:
		return domain.Float(b.fvals[i])
	case domain.TypeDecimal:
		c, _ := domain.DecimalText(b.svals[i])
		return c
	case domain.TypeDate:
		return domain.DateCell(domain.Date(b.ivals[i]))
	case domain.TypeTimestamp:
		return domain.Text(column.RenderTimestamp(b.ivals[i]))
	case domain.TypeBoolean:
		return domain.Bool(b.ivals[i] != 0)
	}
	return domain.Int(b.ivals[i])
}

// Ranks returns the ascending rank of every code's value (index k-1).
func (b *codebook) Ranks() []int32 {
	switch {
	case b.typ == domain.TypeDecimal:
		return column.RankOf(len(b.svals), func(x, y int) bool { return decLess(b.svals[x], b.svals[y]) })
	case b.strs != nil:
		return column.RankOf(len(b.svals), func(x, y int) bool { return b.svals[x] < b.svals[y] })
	case b.flts != nil:
		return column.RankOf(len(b.fvals), func(x, y int) bool { return b.fvals[x] < b.fvals[y] })
	}
	return column.RankOf(len(b.ivals), func(x, y int) bool { return b.ivals[x] < b.ivals[y] })
}

// into returns, per code of b (index 0 is null), the code of the same
// value in dst, adding the values dst lacks.
func (b *codebook) into(dst *codebook) []int32 {
	n := b.card()
	tr := make([]int32, n+1)
	for k := 1; k <= n; k++ {
		switch {
		case b.strs != nil:
			tr[k] = dst.text(b.svals[k-1])
		case b.flts != nil:
			tr[k] = dst.float(b.fvals[k-1])
		default:
			tr[k] = dst.int(b.ivals[k-1])
		}
	}
	return tr
}

// codeOf returns the code of row r of c in b (0 for null), m caching the
// codes of c's dictionary entries for text.
func (b *codebook) codeOf(c *column.Column, r int32, m *column.DictMap) int32 {
	if !c.IsValid(r) {
		return 0
	}
	switch c.Type {
	case domain.TypeText:
		i := c.Index(r)
		k := m.Vals[i]
		if k < 0 {
			k = b.text(c.Dict[i])
			m.Vals[i] = k
		}
		return k
	case domain.TypeFloat:
		return b.float(c.Floats[r])
	case domain.TypeDecimal:
		return b.text(c.DecAt(r).Cell(c.Scale).Render())
	case domain.TypeDate:
		return b.int(int64(c.Day(r)))
	case domain.TypeBoolean:
		return b.int(b2i(c.Bools.Value(int(r))))
	}
	return b.int(c.Int(r))
}

// MaxGroupKeys is the most columns a question groups by (groups.MaxKeys).
const MaxGroupKeys = groups.MaxKeys

// decLess orders two canonical decimal texts by value.
func decLess(a, b string) bool {
	x, sx, _ := column.ParseDecimalText(a)
	y, sy, _ := column.ParseDecimalText(b)
	return i128.CompareScaled(x, sx, y, sy) < 0
}
