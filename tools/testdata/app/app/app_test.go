package app_test

import (
	"testing"

	"sutura.dev/app"
	"sutura.dev/domain"
	http "sutura.dev/transport-http" // planted: nor a transport, in tests too
)

func TestAnswer(t *testing.T) {
	if app.Answer(domain.Question{Metric: http.Name}) != "http" {
		t.Fatal("wrong answer")
	}
}
