package value

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/i128"
)

// A value renders as the cell of its kind, a decimal at its scale and a
// null as null, and reads as the number a ratio divides.
func TestValueCellAndNumber(t *testing.T) {
	for _, c := range []struct {
		v    Value
		cell string
		num  float64
	}{
		{Value{Kind: domain.KindInt, I: -42}, "-42", -42},
		{Value{Kind: domain.KindFloat, F: 2.5}, "2.5", 2.5},
		{Value{Kind: domain.KindDecimal, D: i128.Of(12345), Sc: 2}, "123.45", 123.45},
		{Value{Kind: domain.KindDate, I: 20_089}, "2025-01-01", 20_089},
		{Value{Kind: domain.KindBool, I: 1}, "true", 1},
		{Value{Kind: domain.KindText, S: "web"}, "web", 0},
		{Value{Null: true, Kind: domain.KindInt, I: 7}, domain.Null().Render(), 7},
	} {
		assert.Equal(t, c.cell, c.v.Cell().Render(), "%+v", c.v)
		if c.v.Kind != domain.KindText {
			assert.Equal(t, c.num, c.v.Num(), "%+v", c.v)
		}
	}
}

// An average's quotient is the float64 nearest the exact quotient of a
// decimal sum by an integer or decimal count, and a plain division
// otherwise.
func TestQuotient(t *testing.T) {
	ten := Value{Kind: domain.KindDecimal, D: i128.Of(1000), Sc: 2} // 10.00
	assert.Equal(t, 10.0/3, Quotient(ten, Value{Kind: domain.KindInt, I: 3}))
	assert.Equal(t, 4.0, Quotient(ten, Value{Kind: domain.KindDecimal, D: i128.Of(25), Sc: 1})) // 10.00 / 2.5
	assert.Equal(t, 2.5, Quotient(Value{Kind: domain.KindInt, I: 5}, Value{Kind: domain.KindInt, I: 2}))
	// 2^53 + 1 has no float64; divided as a float it would give
	// 3002399751580330.5, divided exactly it is 3002399751580331.
	big := Value{Kind: domain.KindDecimal, D: i128.Of(1<<53 + 1)}
	assert.Equal(t, 3002399751580331.0, Quotient(big, Value{Kind: domain.KindInt, I: 3}))
}
