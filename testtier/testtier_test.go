package testtier

import (
	"fmt"
	"strings"
	"testing"
)

// TestTable: every row is well formed, names are unique identifiers, and
// the tiers CI has always required are there.
func TestTable(t *testing.T) {
	seen := map[string]bool{}
	for _, tier := range Tiers() {
		if seen[tier.Name] {
			t.Errorf("tier %s is listed twice", tier.Name)
		}
		seen[tier.Name] = true
		if tier.Name == "" || strings.ContainsAny(tier.Name, " ,()") || tier.Needs == "" || tier.Provide == "" {
			t.Errorf("tier %+v: name, needs and provide must be set, and the name one word", tier)
		}
	}
	for _, name := range []string{"postgres", "clickhouse", "chdb", "duckdb", "node", "chromium", "readme"} {
		if !seen[name] {
			t.Errorf("tier %s is missing", name)
		}
	}
}

// recorder is a testing.TB that records how it ended instead of ending
// the test.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper() {}
func (r *recorder) Skipf(format string, args ...any) {
	r.skipped = sprintf(format, args...)
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = sprintf(format, args...)
}

// TestNeed: an optional tier skips with the line scripts/test collects; a
// required one fails, saying how to provide it; an unknown name fails.
func TestNeed(t *testing.T) {
	t.Setenv("SUTURA_REQUIRE_TIERS", "")
	r := &recorder{TB: t}
	Need(r, "postgres", "SUTURA_PG_URL unset")
	if r.skipped != "NOT RUN: postgres (SUTURA_PG_URL unset)" || r.failed != "" {
		t.Errorf("optional tier: skipped %q, failed %q", r.skipped, r.failed)
	}

	t.Setenv("SUTURA_REQUIRE_TIERS", "node, postgres")
	r = &recorder{TB: t}
	Need(r, "postgres", "SUTURA_PG_URL unset")
	if r.skipped != "" || !strings.Contains(r.failed, "postgres is a required tier") || !strings.Contains(r.failed, `scripts/pg start`) {
		t.Errorf("required tier: skipped %q, failed %q", r.skipped, r.failed)
	}

	r = &recorder{TB: t}
	Need(r, "postgress", "typo")
	if !strings.Contains(r.failed, "is not a tier") {
		t.Errorf("unknown tier: skipped %q, failed %q", r.skipped, r.failed)
	}
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
