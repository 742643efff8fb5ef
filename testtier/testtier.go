// Package testtier is the one table of the suite's test tiers and the one
// way a test says that its tier cannot run here.
//
// A tier is a part of the suite that needs something outside Go: a
// database server, a C compiler, a browser, a JavaScript runtime. The
// table (tiers.tsv beside this file, embedded) names each tier, what it
// needs, how to provide it, and whether CI requires it. scripts/test reads
// it to name every tier that did not run in its last lines, .ci/run reads
// it to set SUTURA_REQUIRE_TIERS, and tests call Need, so the three never
// disagree about a tier's name. docs/testing.md explains the tiers.
//
// It imports only the standard library, so any module's tests, and the
// test-harness packages of the adapters, may import it.
package testtier

import (
	_ "embed"
	"fmt"
	"os"
	"strings"
	"testing"
)

//go:embed tiers.tsv
var table string

// Tier is one row of the table.
type Tier struct {
	Name     string // as in SUTURA_REQUIRE_TIERS and in "NOT RUN: <name> (…)"
	Needs    string // what the tier needs, in words
	Provide  string // how to provide it on this project's machines
	Required bool   // whether CI requires it (the ci column says required)
}

// Tiers returns every tier of the table, in its order. The table is part
// of this package: a malformed row is a defect found by the package's own
// test, so Tiers panics on one.
func Tiers() []Tier {
	var out []Tier
	for i, line := range strings.Split(table, "\n") {
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "name\t") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 || (f[3] != "required" && f[3] != "optional") {
			panic(fmt.Sprintf("testtier: tiers.tsv line %d is not name, needs, provide, required|optional", i+1))
		}
		out = append(out, Tier{Name: f[0], Needs: f[1], Provide: f[2], Required: f[3] == "required"})
	}
	return out
}

// Lookup returns the tier called name.
func Lookup(name string) (Tier, bool) {
	for _, t := range Tiers() {
		if t.Name == name {
			return t, true
		}
	}
	return Tier{}, false
}

// Required reports whether SUTURA_REQUIRE_TIERS (comma-separated, as CI
// sets it) lists the tier name: a test of that tier then fails where it
// would otherwise say NOT RUN.
func Required(name string) bool {
	for _, r := range strings.Split(os.Getenv("SUTURA_REQUIRE_TIERS"), ",") {
		if strings.TrimSpace(r) == name {
			return true
		}
	}
	return false
}

// Need ends t because the tier called name cannot run here, for the reason
// why (a short phrase: "SUTURA_PG_URL unset", "-short skips the browser
// tests"). When the tier is required it fails t, saying how to provide
// the tier; otherwise it skips t with "NOT RUN: <name> (<why>)", the line
// scripts/test collects. A name that is not in the table fails t: a tier
// nobody listed would never be counted.
func Need(t testing.TB, name, why string) {
	t.Helper()
	tier, ok := Lookup(name)
	if !ok {
		t.Fatalf("testtier: %q is not a tier of testtier/tiers.tsv", name)
		return
	}
	if Required(name) {
		t.Fatalf("%s is a required tier (SUTURA_REQUIRE_TIERS) but cannot run here: %s; it needs %s: %s", name, why, tier.Needs, tier.Provide)
		return
	}
	t.Skipf("NOT RUN: %s (%s)", name, why)
}
