package runtime

import "testing"

func TestNewAdmission(t *testing.T) {
	if NewAdmission(1) == nil {
		t.Fatal("nil")
	}
}
