package kernel

import (
	"math/big"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/i128"
)

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
