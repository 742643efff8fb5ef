package chdbtest

import (
	"os"
	"strings"
	"testing"
)

// Tier is the name of the tier in SUTURA_REQUIRE_TIERS.
const Tier = "chdb"

// Required reports whether SUTURA_REQUIRE_TIERS (a comma-separated list)
// lists chdb, so that a missing library fails instead of skipping.
func Required() bool {
	for _, tier := range strings.Split(os.Getenv("SUTURA_REQUIRE_TIERS"), ",") {
		if strings.TrimSpace(tier) == Tier {
			return true
		}
	}
	return false
}

// Lib returns SUTURA_CHDB_LIB, the path of libchdb.so, skipping t (or
// failing it when the chdb tier is required) when it is unset.
func Lib(t testing.TB) string {
	t.Helper()
	lib := os.Getenv("SUTURA_CHDB_LIB")
	if lib == "" {
		if Required() {
			t.Fatal("chdb is a required tier (SUTURA_REQUIRE_TIERS) but SUTURA_CHDB_LIB is unset: run eval \"$(scripts/chdb)\"")
		}
		t.Skip("NOT RUN: chdb (SUTURA_CHDB_LIB unset)")
	}
	return lib
}
