package execarrow_test

import (
	"testing"

	"sutura.dev/app/conformance"
	execarrow "sutura.dev/exec-arrow"
)

// TestConformance runs the contract suite from the adapter's own module.
func TestConformance(t *testing.T) {
	if !conformance.Run((&execarrow.Engine{}).Columns) {
		t.Fatal("no columns")
	}
}
