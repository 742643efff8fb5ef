package column

import (
	"math/big"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/domain"
)

func TestParseDecimalText(t *testing.T) {
	for in, want := range map[string][2]string{
		"12.50": {"1250", "2"}, "-0.001": {"-1", "3"}, "1e3": {"1000", "0"}, "7": {"7", "0"}, "0.0": {"0", "1"},
		"123456789012345678901234567890.12345678": {"12345678901234567890123456789012345678", "8"},
	} {
		v, sc, ok := ParseDecimalText(in)
		require.True(t, ok, in)
		assert.Equal(t, want[0], v.Big().String(), in)
		assert.Equal(t, want[1], big.NewInt(int64(sc)).String(), in)
	}
	for _, bad := range []string{"", "x", "1e", "123456789012345678901234567890123456789", "1e40"} {
		_, _, ok := ParseDecimalText(bad)
		assert.False(t, ok, bad)
	}
}

func TestDecBuilder(t *testing.T) {
	// Undeclared: the scale grows and values already held are rescaled;
	// past 64 bits the column is Decimal128.
	b := NewDecBuilder(DecimalSpec{}, false)
	for _, s := range []string{"1", "2.5", "", "-0.125"} {
		if s == "" {
			b.AppendNull()
			continue
		}
		require.NoError(t, b.AppendText(s))
	}
	c := b.Finish("x")
	assert.Equal(t, int32(3), c.Scale)
	assert.Nil(t, c.Dec)
	var got []string
	for r := range int32(4) {
		got = append(got, c.Cell(r).Render())
	}
	assert.Equal(t, []string{"1", "2.5", "null", "-0.125"}, got)

	b = NewDecBuilder(DecimalSpec{}, false)
	require.NoError(t, b.AppendText("1.5"))
	require.NoError(t, b.AppendText("12345678901234567890.5"))
	c = b.Finish("x")
	require.NotNil(t, c.Dec)
	assert.Equal(t, "1.5", c.Cell(0).Render())
	assert.Equal(t, "12345678901234567890.5", c.Cell(1).Render())
	assert.Equal(t, domain.KindDecimal, c.Cell(0).Kind())

	// Declared: more fractional digits are refused unless zeros; more
	// digits than the precision are refused.
	b = NewDecBuilder(DecimalSpec{Precision: 5, Scale: 2, Scaled: true}, false)
	require.NoError(t, b.AppendText("1.50"))
	require.NoError(t, b.AppendText("1.500"))
	assert.ErrorAs(t, b.AppendText("1.505"), new(ErrScale))
	assert.ErrorIs(t, b.AppendText("1234.5"), domain.ErrDecimalOverflow)
	require.NoError(t, b.AppendText("999.99"))
	assert.ErrorAs(t, b.AppendText("abc"), new(ErrNotType))
}
