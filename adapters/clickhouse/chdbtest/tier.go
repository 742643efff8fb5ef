package chdbtest

import (
	"testing"

	"sutura.dev/adapters/sqlsource/sqltest"
)

// Tier is the chdb tier: the path of libchdb.so in SUTURA_CHDB_LIB.
var Tier = sqltest.Tier{Name: "chdb", Env: "SUTURA_CHDB_LIB", Start: `eval "$(scripts/chdb)"`}

// Required reports whether SUTURA_REQUIRE_TIERS (a comma-separated list)
// lists chdb, so that a missing library fails instead of skipping.
func Required() bool { return Tier.Required() }

// Lib returns SUTURA_CHDB_LIB, the path of libchdb.so, skipping t (or
// failing it when the chdb tier is required) when it is unset.
func Lib(t testing.TB) string {
	t.Helper()
	return Tier.Value(t)
}
