package column

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
)

// TestBitmapAppends: bits pushed one at a time, in runs and copied from
// another bitmap, at every offset within a byte, read back as pushed,
// with the bytes covering exactly the bits and nothing set past them.
func TestBitmapAppends(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	var m bitmap
	var want []bool
	for step := range 400 {
		switch step % 3 {
		case 0:
			v := rng.IntN(2) == 0
			m.push(v)
			want = append(want, v)
		case 1:
			v, n := rng.IntN(2) == 0, rng.IntN(20)
			m.pushN(v, n)
			for range n {
				want = append(want, v)
			}
		case 2:
			n := rng.IntN(30)
			src := make([]byte, bitBytes(n)+1)
			for i := range src {
				src[i] = byte(rng.Uint32())
			}
			m.pushBits(src, n)
			for i := range n {
				want = append(want, src[i>>3]&(1<<(i&7)) != 0)
			}
		}
		require.Equal(t, len(want), m.n)
		require.Len(t, m.b, bitBytes(m.n), "step %d", step)
		if m.n&7 != 0 {
			require.Zero(t, m.b[len(m.b)-1]>>(m.n&7), "step %d: bits past the end", step)
		}
	}
	for i, v := range want {
		require.Equal(t, v, m.get(i), "bit %d", i)
	}
}

// TestBooleanBuilderBits: a boolean column built a bit a value, value by
// value and from batch columns with nulls, holds every value, its nulls
// as false, and its validity.
func TestBooleanBuilderBits(t *testing.T) {
	b := NewBuilder(domain.TypeBoolean, false)
	b.(Reserver).Reserve(20)
	var want []string
	for i := range 13 {
		switch i % 4 {
		case 0:
			b.AppendNull()
			want = append(want, "")
		default:
			require.NoError(t, b.AppendBool(i%3 == 0))
			want = append(want, map[bool]string{true: "true", false: "false"}[i%3 == 0])
		}
	}
	batch := &Column{Type: domain.TypeBoolean, N: 10, BoolBits: []byte{0xff, 0xff}, Valid: []byte{0b1111_0101, 0b11}}
	_, err := b.(ColumnAppender).AppendColumn(batch)
	require.NoError(t, err)
	for i := range 10 {
		if batch.IsValid(int32(i)) {
			want = append(want, "true")
		} else {
			want = append(want, "")
		}
	}
	c := b.Finish("b")
	require.Equal(t, len(want), c.N)
	for r, v := range want {
		if v == "" {
			require.False(t, c.IsValid(int32(r)), "row %d", r)
			require.False(t, c.Bools.Value(r), "row %d: a null's value is false", r)
			continue
		}
		require.True(t, c.IsValid(int32(r)), "row %d", r)
		require.Equal(t, v, c.Cell(int32(r)).Render(), "row %d", r)
	}
}
