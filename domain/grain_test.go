package domain

import (
	"strings"
	"testing"
	"time"
)

func TestGrainNames(t *testing.T) {
	want := []string{"day", "week", "month", "quarter", "year"}
	if len(Grains) != len(want) {
		t.Fatalf("Grains has %d entries", len(Grains))
	}
	for i, g := range Grains {
		if g.String() != want[i] {
			t.Errorf("Grains[%d] = %s, want %s (finest first)", i, g, want[i])
		}
		p, ok := ParseGrain(want[i])
		if !ok || p != g {
			t.Errorf("ParseGrain(%q) = %v, %v", want[i], p, ok)
		}
		b, _ := g.MarshalText()
		if string(b) != want[i] {
			t.Errorf("MarshalText = %q", b)
		}
		if i > 0 && !(Grains[i-1] < g) {
			t.Errorf("grains are not ordered finest first")
		}
	}
	for _, bad := range []string{"", "Day", "MONTH", "days", "weekly", "hour", " month", "month "} {
		if g, ok := ParseGrain(bad); ok {
			t.Errorf("ParseGrain(%q) = %v, want refused", bad, g)
		}
	}
	for _, g := range []Grain{0, 6, 255} {
		if g.String() != "invalid" {
			t.Errorf("Grain(%d).String() = %q", g, g.String())
		}
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		g    Grain
		in   string
		want string
	}{
		{Day, "2026-03-18", "2026-03-18"},
		{Day, "2024-02-29", "2024-02-29"},

		// Weeks start on Monday.
		{Week, "2026-03-16", "2026-03-16"}, // Monday
		{Week, "2026-03-17", "2026-03-16"}, // Tuesday
		{Week, "2026-03-21", "2026-03-16"}, // Saturday
		{Week, "2026-03-22", "2026-03-16"}, // Sunday belongs to the week before
		{Week, "2026-03-23", "2026-03-23"}, // the next Monday
		{Week, "2026-01-01", "2025-12-29"}, // Thursday; the week began in the previous year
		{Week, "2026-01-04", "2025-12-29"}, // Sunday across the year boundary
		{Week, "2025-12-31", "2025-12-29"},
		{Week, "2024-12-30", "2024-12-30"}, // a Monday that is in the last days of a year
		{Week, "2025-01-05", "2024-12-30"}, // Sunday
		{Week, "2024-03-03", "2024-02-26"}, // Sunday after a leap day
		{Week, "1970-01-01", "1969-12-29"}, // Thursday, the zero Date
		{Week, "1969-12-28", "1969-12-22"}, // a Sunday before the epoch

		{Month, "2026-03-18", "2026-03-01"},
		{Month, "2026-03-01", "2026-03-01"},
		{Month, "2026-03-31", "2026-03-01"},
		{Month, "2024-02-29", "2024-02-01"},
		{Month, "1969-12-31", "1969-12-01"},

		{Quarter, "2026-01-01", "2026-01-01"},
		{Quarter, "2026-02-15", "2026-01-01"},
		{Quarter, "2026-03-31", "2026-01-01"},
		{Quarter, "2026-04-01", "2026-04-01"},
		{Quarter, "2026-06-30", "2026-04-01"},
		{Quarter, "2026-07-01", "2026-07-01"},
		{Quarter, "2026-09-30", "2026-07-01"},
		{Quarter, "2026-10-01", "2026-10-01"},
		{Quarter, "2026-12-31", "2026-10-01"},

		{Year, "2026-12-31", "2026-01-01"},
		{Year, "2026-01-01", "2026-01-01"},
		{Year, "2024-02-29", "2024-01-01"},
		{Year, "1969-07-20", "1969-01-01"},
	}
	for _, tt := range tests {
		if got := tt.g.Truncate(mustDate(t, tt.in)).String(); got != tt.want {
			t.Errorf("%s.Truncate(%s) = %s, want %s", tt.g, tt.in, got, tt.want)
		}
	}
}

// TestTruncateProperties checks, for every day of several years and every
// grain, that the bucket start is not after the day, is a Monday or first
// of month/quarter/year, and that the day falls before the next bucket.
func TestTruncateProperties(t *testing.T) {
	from, to := mustDate(t, "2019-06-01"), mustDate(t, "2026-06-01")
	for d := from; d < to; d++ {
		for _, g := range Grains {
			s := g.Truncate(d)
			if s > d {
				t.Fatalf("%s.Truncate(%s) = %s is after it", g, d, s)
			}
			if g.Truncate(s) != s {
				t.Fatalf("%s.Truncate is not idempotent at %s", g, d)
			}
			next := g.Add(s, 1)
			if !(d < next) {
				t.Fatalf("%s: %s is not before the next bucket %s", g, d, next)
			}
			_, m, day := s.Civil()
			switch g {
			case Week:
				if s.Weekday() != time.Monday || d-s > 6 {
					t.Fatalf("week of %s starts %s (%v)", d, s, s.Weekday())
				}
			case Month:
				if day != 1 {
					t.Fatalf("month of %s starts %s", d, s)
				}
			case Quarter:
				if day != 1 || (m-1)%3 != 0 {
					t.Fatalf("quarter of %s starts %s", d, s)
				}
			case Year:
				if day != 1 || m != time.January {
					t.Fatalf("year of %s starts %s", d, s)
				}
			}
		}
	}
}

func TestGrainAdd(t *testing.T) {
	tests := []struct {
		g    Grain
		from string
		n    int
		want string
	}{
		{Day, "2024-02-28", 1, "2024-02-29"},
		{Day, "2024-03-01", -1, "2024-02-29"},
		{Day, "2026-01-01", 0, "2026-01-01"},
		{Week, "2025-12-29", 1, "2026-01-05"},
		{Week, "2026-01-05", -1, "2025-12-29"},
		{Week, "2026-03-16", -52, "2025-03-17"},
		{Month, "2026-01-01", 1, "2026-02-01"},
		{Month, "2026-12-01", 1, "2027-01-01"},
		{Month, "2026-01-01", -1, "2025-12-01"},
		{Month, "2026-01-01", -12, "2025-01-01"},
		{Month, "2026-01-01", -13, "2024-12-01"},
		{Month, "2026-03-01", 22, "2028-01-01"},
		{Month, "2026-03-01", -26, "2024-01-01"},
		{Quarter, "2026-10-01", 1, "2027-01-01"},
		{Quarter, "2026-01-01", -1, "2025-10-01"},
		{Quarter, "2026-04-01", -8, "2024-04-01"},
		{Quarter, "2026-07-01", 6, "2028-01-01"},
		{Year, "2026-01-01", 1, "2027-01-01"},
		{Year, "2026-01-01", -10, "2016-01-01"},
		{Year, "2026-01-01", 0, "2026-01-01"},
	}
	for _, tt := range tests {
		if got := tt.g.Add(mustDate(t, tt.from), tt.n).String(); got != tt.want {
			t.Errorf("%s.Add(%s, %d) = %s, want %s", tt.g, tt.from, tt.n, got, tt.want)
		}
	}
	// Adding n then -n returns to the start for every bucket start.
	for _, g := range Grains {
		s := g.Truncate(mustDate(t, "2026-03-18"))
		for n := -40; n <= 40; n++ {
			if back := g.Add(g.Add(s, n), -n); back != s {
				t.Errorf("%s: Add(Add(%s, %d), %d) = %s", g, s, n, -n, back)
			}
			if b := g.Add(s, n); g.Truncate(b) != b {
				t.Errorf("%s.Add(%s, %d) = %s is not a bucket start", g, s, n, b)
			}
		}
	}
}

func TestIsPeriod(t *testing.T) {
	tests := []struct {
		g          Grain
		start, end string
		want       bool
	}{
		{Day, "2026-03-18", "2026-03-19", true},
		{Day, "2026-03-18", "2026-03-20", false},
		{Week, "2026-03-16", "2026-03-23", true},
		{Week, "2026-03-17", "2026-03-24", false}, // seven days, not Monday-based
		{Week, "2026-03-16", "2026-03-30", false},
		{Month, "2026-02-01", "2026-03-01", true},
		{Month, "2024-02-01", "2024-03-01", true},
		{Month, "2026-02-01", "2026-03-02", false},
		{Month, "2026-02-15", "2026-03-15", false},
		{Month, "2026-01-01", "2026-01-31", false},
		{Quarter, "2026-01-01", "2026-04-01", true},
		{Quarter, "2026-10-01", "2027-01-01", true},
		{Quarter, "2026-02-01", "2026-05-01", false},
		{Quarter, "2026-01-01", "2026-07-01", false},
		{Year, "2025-01-01", "2026-01-01", true},
		{Year, "2025-07-01", "2026-07-01", false},
		{Year, "2025-01-01", "2025-12-31", false},
		{Year, "2025-01-01", "2025-01-01", false},
	}
	for _, tt := range tests {
		r := Range{Start: mustDate(t, tt.start), End: mustDate(t, tt.end)}
		if got := tt.g.IsPeriod(r); got != tt.want {
			t.Errorf("%s.IsPeriod([%s, %s)) = %v, want %v", tt.g, tt.start, tt.end, got, tt.want)
		}
	}
}

func TestGrainTextRoundTrip(t *testing.T) {
	for _, g := range Grains {
		b, err := g.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back Grain
		if err := back.UnmarshalText(b); err != nil || back != g {
			t.Errorf("%s: UnmarshalText(%q) = %v, %v", g, b, back, err)
		}
	}
	for _, bad := range []string{"", "Month", "hour", "ZZplanted"} {
		g := Week
		err := g.UnmarshalText([]byte(bad))
		if err == nil {
			t.Errorf("UnmarshalText(%q) accepted", bad)
			continue
		}
		if g != Week {
			t.Errorf("a failed UnmarshalText(%q) changed the grain to %v", bad, g)
		}
		if bad != "" && strings.Contains(err.Error(), bad) {
			t.Errorf("error %q echoes the text", err)
		}
	}
}
