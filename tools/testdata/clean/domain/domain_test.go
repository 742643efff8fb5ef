package domain

import "testing"

func TestQuestion(t *testing.T) {
	if (Question{Metric: "m"}).Metric != "m" {
		t.Fatal("metric lost")
	}
}
