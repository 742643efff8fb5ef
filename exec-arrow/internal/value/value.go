// Package value is a finished aggregate's value: a typed cell of one
// group with what orders it, as the kernels finish it and an answer
// renders, ranks and divides it (docs/reference.md, "Numbers").
package value

import (
	"math/big"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/i128"
)

// Value is a finished aggregate of one group: a typed cell with its sort
// key.
type Value struct {
	Null bool
	Kind domain.Kind
	I    int64
	F    float64
	S    string
	// ByInt orders a text value by i (a timestamp rendered as text).
	ByInt bool
	// D and Sc are a decimal value: D × 10^-Sc.
	D  i128.Int
	Sc int32
	// Overflow marks a decimal sum past 38 digits, or (with IntOverflow)
	// an integer sum past int64: the value does not exist in its type,
	// and the question fails (domain.ErrDecimalOverflow,
	// domain.ErrIntegerOverflow).
	Overflow    bool
	IntOverflow bool
}

// Cell is the value as an answer's cell.
func (v Value) Cell() domain.Cell {
	if v.Null {
		return domain.Null()
	}
	switch v.Kind {
	case domain.KindInt:
		return domain.Int(v.I)
	case domain.KindFloat:
		return domain.Float(v.F)
	case domain.KindDate:
		return domain.DateCell(domain.Date(v.I))
	case domain.KindBool:
		return domain.Bool(v.I != 0)
	case domain.KindDecimal:
		return v.D.Cell(v.Sc)
	}
	return domain.Text(v.S)
}

// Num is the value as a float64, for ratios.
func (v Value) Num() float64 {
	switch v.Kind {
	case domain.KindFloat:
		return v.F
	case domain.KindDecimal:
		return v.D.Cell(v.Sc).FloatValue()
	}
	return float64(v.I)
}

// Quotient is an average's sum divided by its count: for a decimal sum,
// the float64 nearest to the exact quotient (as a decimal avg is finished,
// docs/reference.md); otherwise as float64.
func Quotient(sum, n Value) float64 {
	if sum.Kind == domain.KindDecimal && n.Kind == domain.KindInt {
		return i128.Quotient(sum.D, sum.Sc, big.NewInt(n.I), 0)
	}
	if sum.Kind == domain.KindDecimal && n.Kind == domain.KindDecimal {
		return i128.Quotient(sum.D, sum.Sc, n.D.Big(), n.Sc)
	}
	return sum.Num() / n.Num()
}
