package fillsize

import (
	"testing"

	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
)

// TestBytesByWhatTheStreamMet: a text column whose batches each held at
// most 256 values counts a byte a row, one whose batch held more four,
// each with the dictionary entries met; an integer column counts four
// bytes a row when narrow and no batch was wide; dates two or four, a
// boolean a bit, a column read for its validity alone a bit; and a bit
// of validity each.
func TestBytesByWhatTheStreamMet(t *testing.T) {
	const rows = 1600
	few := &column.Column{Type: domain.TypeText, Dict: make([]string, 200)}
	many := &column.Column{Type: domain.TypeText, Dict: make([]string, 300)}
	ints := &column.Column{Type: domain.TypeInteger, Ints32: []int32{1}}
	wide := &column.Column{Type: domain.TypeInteger, Ints: []int64{1 << 40}}
	s := New(4)
	s.Rows.Store(rows)
	s.Batch([]*column.Column{few, many, ints, wide})
	s.Batch([]*column.Column{few, nil, ints, nil})
	require.False(t, s.IntsWide(2))
	require.True(t, s.IntsWide(3))
	text := s.Bytes([]Slot{{Col: few}, {Col: many}})
	// few: 400 entries met (over rows/16 = 100: 100 counted), a byte a
	// row; many: 300 entries (100 counted), four bytes a row.
	require.Equal(t, int64(80*100+80*100+(9+33)*rows/8), text)
	require.Equal(t, int64((33+65)*rows/8), s.Bytes([]Slot{{Col: ints, Narrow: true}, {Col: wide}}))
	date := &column.Column{Type: domain.TypeDate}
	require.Equal(t, int64((17+33+1+2)*rows/8), s.Bytes([]Slot{{Col: date, Narrow: true},
		{Col: &column.Column{Type: domain.TypeTimestamp}, Days: true}, {Col: &column.Column{Type: domain.TypeText, ValidOnly: true}},
		{Col: &column.Column{Type: domain.TypeBoolean}}}))
}
