package postgres_test

import (
	"testing"

	"sutura.dev/adapters/postgres"
	"sutura.dev/app"
	"sutura.dev/app/apptest"
)

// The fakes are allowed in an adapter's tests; app itself is not.
var _ app.DataSystem = postgres.DB{}

func TestAnswers(t *testing.T) {
	if (postgres.DB{}).Execute(apptest.Question) == "" {
		t.Fatal("no answer")
	}
}
