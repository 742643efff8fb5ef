package domain

import (
	"fmt"
	"strings"
)

// ZeroDenominatorError is the error of a data system whose statement
// failed on a zero denominator without saying which ratio's (SQL raises
// one error for the whole statement): ErrZeroDenominator, wrapped, naming
// every ratio metric of the plan declared zero_denominator: fails.
func (p *Plan) ZeroDenominatorError() error {
	var names []string
	for _, leg := range p.Legs {
		for _, m := range leg.Metrics {
			if m.Measure.Ratio != nil && m.Measure.Ratio.ZeroDenominator == Fails {
				names = append(names, m.Name)
			}
		}
	}
	return fmt.Errorf("metric %s: %w", strings.Join(names, ", "), ErrZeroDenominator)
}
