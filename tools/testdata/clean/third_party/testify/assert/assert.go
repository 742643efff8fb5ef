// Package assert stands in for testify's, so the fixture needs no network.
package assert

// TestingT is the part of testing.TB assert uses.
type TestingT interface {
	Errorf(format string, args ...any)
}

// True reports an error unless v is true.
func True(t TestingT, v bool) bool {
	if !v {
		t.Errorf("should be true")
	}
	return v
}
