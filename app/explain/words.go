package explain

import (
	"fmt"
	"strings"

	"sutura.dev/domain"
)

// MeasureText says what a metric aggregates, in the catalogue's own words:
// "sum(amount)", or "count_if(is_returned) / count(order_id) (zero
// denominator yields null)" for a ratio, or "authored SQL".
func MeasureText(m *domain.Metric) string {
	switch {
	case m.Measure == nil:
		return "authored SQL"
	case m.Measure.Ratio != nil:
		r := m.Measure.Ratio
		return fmt.Sprintf("%s / %s (zero denominator %s)", termText(r.Numerator), termText(r.Denominator),
			strings.ReplaceAll(string(r.ZeroDenominator), "_", " "))
	case m.Measure.Simple != nil:
		return termText(*m.Measure.Simple)
	}
	return ""
}

func termText(t domain.Term) string {
	if t.CountIf != "" {
		return "count_if(" + t.CountIf + ")"
	}
	return string(t.Aggregate) + "(" + t.Column + ")"
}

// RequiredFilterText describes a required filter in words: which rows of
// the model it keeps, naming its column but never its value, which is
// part of the definition and never shown to callers.
func RequiredFilterText(f domain.RequiredFilter) string {
	switch f.Op {
	case domain.Equals:
		return "only rows where " + f.Column + " has one fixed value"
	case domain.NotEquals:
		return "leaves out rows where " + f.Column + " has one fixed value"
	case domain.IsTrue:
		return "only rows where " + f.Column + " is true"
	case domain.IsNotNull:
		return "only rows where " + f.Column + " is present (not null)"
	}
	return "a filter on " + f.Column
}
