package main

import (
	"testing"

	"sutura.dev/runtime"
)

// A test's reference does not count.
func TestBound(t *testing.T) { _ = runtime.NewAdmission(1) }
