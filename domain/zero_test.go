package domain

import (
	"errors"
	"testing"
)

func TestZeroDenominatorError(t *testing.T) {
	ratio := func(z ZeroDenominator) Measure {
		return Measure{Ratio: &Ratio{Numerator: Term{Aggregate: Sum, Column: "a"}, Denominator: Term{Aggregate: Sum, Column: "b"}, ZeroDenominator: z}}
	}
	p := &Plan{Legs: []Leg{{Metrics: []MetricRef{
		{Name: "per_order", Measure: ratio(Fails)},
		{Name: "rate", Measure: ratio(YieldsNull)},
		{Name: "total", Measure: Measure{Simple: &Term{Aggregate: Sum, Column: "a"}}},
		{Name: "per_item", Measure: ratio(Fails)},
	}}}}
	err := p.ZeroDenominatorError()
	if !errors.Is(err, ErrZeroDenominator) {
		t.Fatalf("%v does not wrap ErrZeroDenominator", err)
	}
	if want := "metric per_order, per_item: " + ErrZeroDenominator.Error(); err.Error() != want {
		t.Fatalf("got %q, want %q", err.Error(), want)
	}
}
