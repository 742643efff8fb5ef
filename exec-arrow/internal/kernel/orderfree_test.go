package kernel

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestOrderFreeTerms: only terms whose answer no order of rows can change
// let a scan hand row groups to any worker.
func TestOrderFreeTerms(t *testing.T) {
	bounded := func(int) bool { return true }
	unbounded := func(int) bool { return false }
	for _, tc := range []struct {
		name               string
		term               TermPlan
		whenBound, without bool
	}{
		{"count", TermPlan{Op: opCount}, true, true},
		{"count of floats", TermPlan{Op: opCount, Float: true}, true, true},
		{"count_if", TermPlan{Op: opCountIf}, true, true},
		{"count_distinct", TermPlan{Op: OpDistinct}, true, true},
		{"min of integers", TermPlan{Op: OpMin}, true, true},
		{"max of integers", TermPlan{Op: OpMax}, true, true},
		{"min of floats", TermPlan{Op: OpMin, Float: true}, false, false},
		{"integer sum", TermPlan{Op: OpSum}, true, false},
		{"integer average", TermPlan{Op: opAvg}, true, false},
		{"float sum", TermPlan{Op: OpSum, Float: true}, false, false},
		{"decimal sum", TermPlan{Op: OpSum, Dec: true}, false, false},
		{"decimal max", TermPlan{Op: OpMax, Dec: true}, false, false},
	} {
		assert.Equal(t, tc.whenBound, tc.term.OrderFree(bounded), "%s, bounded", tc.name)
		assert.Equal(t, tc.without, tc.term.OrderFree(unbounded), "%s, unbounded", tc.name)
	}
}
