package main

import (
	"testing"

	rt "sutura.dev/runtime"
)

// A test file's reference does not count.
func TestBound(t *testing.T) {
	if rt.NewAdmission(1) == nil {
		t.Fatal("nil bound")
	}
}
