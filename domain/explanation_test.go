package domain

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSizeBoundIsAnUpperBound(t *testing.T) {
	quoted := strings.Repeat("\"\\\x01é", 50)
	for name, e := range map[string]*Explanation{
		"empty": {},
		"full": {
			Definitions: []DefinitionWords{{Metric: "m", Digest: strings.Repeat("a", 64), Measure: "the sum of x", TimeColumn: "t", RequiredFilters: []string{quoted}}},
			Filters:     []AppliedFilter{{Dimension: "d", Op: "in", Values: []string{quoted, "b"}}},
			Legs:        []LegAccount{{Source: "s", Posture: SharedServiceUser, Identity: quoted, RowsScanned: 1 << 62, BytesScanned: 1 << 62, Measured: true, ElapsedMS: 123456.789012, Cache: CacheHit}},
			DataThrough: []DataThrough{{Model: "m", Source: "s", Through: "2026-06-30"}},
			Notes:       []string{quoted},
			Statements:  []Statement{{Source: "s", Dialect: "postgres", Text: quoted, Params: []string{quoted}}},
			TraceID:     strings.Repeat("f", 32),
		},
	} {
		b, err := json.Marshal(e.wire())
		if err != nil {
			t.Fatal(err)
		}
		if e.Size() > e.SizeBound() || len(b) > e.SizeBound() {
			t.Errorf("%s: size %d (wire %d) over the bound %d", name, e.Size(), len(b), e.SizeBound())
		}
	}
	var none *Explanation
	if none.Size() != 0 || none.SizeBound() != 0 {
		t.Error("a nil explanation takes no room")
	}
}

func TestValidTraceParent(t *testing.T) {
	for tp, want := range map[string]bool{
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01":  true,
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00":  true,
		"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01":  false,
		"00-00000000000000000000000000000000-00f067aa0ba902b7-01":  false,
		"00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01":  false,
		"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01":  false,
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'": false,
		"00-4bf92f3577b34da6a3ce929d0e0e473'-00f067aa0ba902b7-01":  false,
		"": false,
	} {
		if got := ValidTraceParent(tp); got != want {
			t.Errorf("ValidTraceParent(%q) = %v", tp, got)
		}
	}
}
