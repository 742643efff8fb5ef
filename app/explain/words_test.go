package explain_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"sutura.dev/app/explain"
	"sutura.dev/domain"
)

func TestMeasureText(t *testing.T) {
	ratio := &domain.Metric{Measure: &domain.Measure{Ratio: &domain.Ratio{
		Numerator:   domain.Term{CountIf: "is_returned"},
		Denominator: domain.Term{Aggregate: domain.Count, Column: "order_id"}, ZeroDenominator: domain.YieldsNull}}}
	assert.Equal(t, "count_if(is_returned) / count(order_id) (zero denominator yields null)", explain.MeasureText(ratio))
	assert.Equal(t, "authored SQL", explain.MeasureText(&domain.Metric{AuthoredSQL: map[string]string{"postgres": "x"}}))
}
