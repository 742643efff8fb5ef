package groups

import (
	"math"
	"strings"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/i128"
)

// Codebook numbers the distinct values of a streamed column as one worker
// meets them: code 0 is null, 1+k the k-th value met. It is the streaming
// counterpart of a cached column's column.CodeSet: it holds only the values
// the question's rows carry, never a dictionary of the whole column, and it
// grows as batches arrive. Text values are hashed by their bytes.
type Codebook struct {
	typ   domain.ColumnType
	strs  map[string]int32
	svals []string
	ints  map[int64]int32
	ivals []int64
	flts  map[float64]int32
	fvals []float64
	size  int64 // bytes held, estimated
}

// NewCodebook returns an empty codebook for values of type typ.
func NewCodebook(typ domain.ColumnType) *Codebook {
	b := &Codebook{typ: typ}
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

// Card is the number of values coded so far.
func (b *Codebook) Card() int {
	switch {
	case b.strs != nil:
		return len(b.svals)
	case b.flts != nil:
		return len(b.fvals)
	}
	return len(b.ivals)
}

// Bytes estimates the memory b holds.
func (b *Codebook) Bytes() int64 { return b.size }

// Text returns the code of s, adding it (a copy: s may alias a batch's
// buffers) when new.
func (b *Codebook) Text(s string) int32 {
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

// Int returns the code of an integer, date (days), timestamp (micros) or
// boolean (0/1) value, adding it when new.
func (b *Codebook) Int(v int64) int32 { return codeIn(b.ints, &b.ivals, v, &b.size) }

// Float returns the code of a real, one code for +0 and -0.
func (b *Codebook) Float(v float64) int32 {
	if v == 0 {
		v = 0
	}
	return codeIn(b.flts, &b.fvals, v, &b.size)
}

// codeIn returns the code of v in codes, adding v when new (appended to
// vals, its code their number, 40 bytes more counted in size).
func codeIn[T int64 | float64](codes map[T]int32, vals *[]T, v T, size *int64) int32 {
	if k, ok := codes[v]; ok {
		return k
	}
	*vals = append(*vals, v)
	k := int32(len(*vals))
	codes[v] = k
	*size += 40
	return k
}

// Cell is the value of code k (k ≥ 1).
func (b *Codebook) Cell(k int32) domain.Cell {
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

// Value is the value of code k (k ≥ 1) as b holds it, the form a distinct
// set takes it in: the text of a text or decimal value (text true), else
// the int64 of an integer, date, timestamp or boolean value, or the IEEE
// bits of a real (+0 for -0).
func (b *Codebook) Value(k int32) (s string, v int64, text bool) {
	switch {
	case b.strs != nil:
		return b.svals[k-1], 0, true
	case b.flts != nil:
		return "", int64(math.Float64bits(b.fvals[k-1])), false
	}
	return "", b.ivals[k-1], false
}

// Ranks returns the ascending rank of every code's value (index k-1).
func (b *Codebook) Ranks() []int32 {
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

// Into returns, per code of b (index 0 is null), the code of the same
// value in dst, adding the values dst lacks.
func (b *Codebook) Into(dst *Codebook) []int32 {
	n := b.Card()
	tr := make([]int32, n+1)
	for k := 1; k <= n; k++ {
		switch {
		case b.strs != nil:
			tr[k] = dst.Text(b.svals[k-1])
		case b.flts != nil:
			tr[k] = dst.Float(b.fvals[k-1])
		default:
			tr[k] = dst.Int(b.ivals[k-1])
		}
	}
	return tr
}

// CodeOf returns the code of row r of c in b (0 for null), m caching the
// codes of c's dictionary entries for text.
func (b *Codebook) CodeOf(c *column.Column, r int32, m *column.DictMap) int32 {
	if !c.IsValid(r) {
		return 0
	}
	switch c.Type {
	case domain.TypeText:
		i := c.Index(r)
		k := m.Vals[i]
		if k < 0 {
			k = b.Text(c.Dict[i])
			m.Vals[i] = k
		}
		return k
	case domain.TypeFloat:
		return b.Float(c.Floats[r])
	case domain.TypeDecimal:
		return b.Text(c.DecAt(r).Cell(c.Scale).Render())
	case domain.TypeDate:
		return b.Int(int64(c.Day(r)))
	case domain.TypeBoolean:
		return b.Int(int64(column.BitOf(c.Bools.Value(int(r)))))
	}
	return b.Int(c.Int(r))
}

// decLess orders two canonical decimal texts by value.
func decLess(a, b string) bool {
	x, sx, _ := column.ParseDecimalText(a)
	y, sy, _ := column.ParseDecimalText(b)
	return i128.CompareScaled(x, sx, y, sy) < 0
}
