package runtime

import (
	"testing"

	"sutura.dev/domain"
)

// Tests may build as many bounds as they like.
func TestAdmit(t *testing.T) {
	if !NewAdmission(1).Admit(domain.Question{Metric: "m"}) {
		t.Fatal("no slot")
	}
}
