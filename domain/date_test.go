package domain

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// mustDate parses an ISO date in a test.
func mustDate(t testing.TB, s string) Date {
	t.Helper()
	d, err := ParseDate(s)
	if err != nil {
		t.Fatalf("ParseDate(%q): %v", s, err)
	}
	return d
}

func TestParseDate(t *testing.T) {
	tests := []struct {
		in      string
		ok      bool
		y       int
		m       time.Month
		d       int
		comment string
	}{
		{"2026-01-01", true, 2026, time.January, 1, ""},
		{"1970-01-01", true, 1970, time.January, 1, "the zero Date"},
		{"2024-02-29", true, 2024, time.February, 29, "leap year"},
		{"2023-02-29", false, 0, 0, 0, "not a leap year"},
		{"2023-02-28", true, 2023, time.February, 28, ""},
		{"2000-02-29", true, 2000, time.February, 29, "divisible by 400"},
		{"1900-02-29", false, 0, 0, 0, "divisible by 100, not by 400"},
		{"2100-02-29", false, 0, 0, 0, "divisible by 100, not by 400"},
		{"1600-02-29", true, 1600, time.February, 29, ""},
		{"2026-04-30", true, 2026, time.April, 30, ""},
		{"2026-04-31", false, 0, 0, 0, "April has 30 days"},
		{"2026-06-31", false, 0, 0, 0, ""},
		{"2026-09-31", false, 0, 0, 0, ""},
		{"2026-11-31", false, 0, 0, 0, ""},
		{"2026-12-31", true, 2026, time.December, 31, ""},
		{"2026-01-32", false, 0, 0, 0, ""},
		{"2026-13-01", false, 0, 0, 0, "month 13"},
		{"2026-00-10", false, 0, 0, 0, "month 0"},
		{"2026-01-00", false, 0, 0, 0, "day 0"},
		{"0000-01-01", false, 0, 0, 0, "year 0"},
		{"0001-01-01", true, 1, time.January, 1, "first year"},
		{"9999-12-31", true, 9999, time.December, 31, "last day"},
		{"1899-12-31", true, 1899, time.December, 31, "before the epoch"},
		{"", false, 0, 0, 0, "empty"},
		{"2026-1-01", false, 0, 0, 0, "short month"},
		{"2026-01-1", false, 0, 0, 0, "short day"},
		{"26-01-01", false, 0, 0, 0, "short year"},
		{"02026-01-01", false, 0, 0, 0, "long year"},
		{"2026/01/01", false, 0, 0, 0, "slashes"},
		{"2026-01-01T00:00:00Z", false, 0, 0, 0, "timestamp"},
		{"2026-01-01 ", false, 0, 0, 0, "trailing space"},
		{" 2026-01-01", false, 0, 0, 0, "leading space"},
		{"2026-0a-01", false, 0, 0, 0, "letter"},
		{"+026-01-01", false, 0, 0, 0, "sign"},
		{"-026-01-01", false, 0, 0, 0, "sign"},
		{"2026--1-01", false, 0, 0, 0, "negative month"},
		{"2026-01-+1", false, 0, 0, 0, "signed day"},
		{"20260101xx", false, 0, 0, 0, "no separators"},
		{"２０２６-01-01", false, 0, 0, 0, "fullwidth digits"},
	}
	for _, tt := range tests {
		t.Run(tt.in+" "+tt.comment, func(t *testing.T) {
			got, err := ParseDate(tt.in)
			if !tt.ok {
				if !errors.Is(err, ErrDateSyntax) {
					t.Fatalf("ParseDate(%q) = %v, %v; want ErrDateSyntax", tt.in, got, err)
				}
				if tt.in != "" && strings.Contains(err.Error(), tt.in) {
					t.Errorf("error echoes the text")
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseDate(%q): %v", tt.in, err)
			}
			y, m, d := got.Civil()
			if y != tt.y || m != tt.m || d != tt.d {
				t.Fatalf("ParseDate(%q) = %d-%d-%d", tt.in, y, m, d)
			}
			if got.String() != tt.in {
				t.Errorf("String() = %q, want %q", got.String(), tt.in)
			}
			want := time.Date(tt.y, tt.m, tt.d, 0, 0, 0, 0, time.UTC)
			if !got.Time().Equal(want) {
				t.Errorf("Time() = %v, want %v", got.Time(), want)
			}
		})
	}
}

func TestZeroDateIsEpoch(t *testing.T) {
	var d Date
	if d.String() != "1970-01-01" {
		t.Fatalf("zero Date = %s", d)
	}
	if d.Weekday() != time.Thursday {
		t.Fatalf("1970-01-01 was a Thursday, got %v", d.Weekday())
	}
	if mustDate(t, "1969-12-31") != -1 || mustDate(t, "1970-01-02") != 1 {
		t.Fatal("dates are not days since 1970-01-01")
	}
}

// TestDateAgreesWithTime is the property: for every day from 1900 to 2100,
// the date's text, civil fields and weekday agree with package time, and
// parsing the text gives the date back.
func TestDateAgreesWithTime(t *testing.T) {
	start := time.Date(1900, time.January, 1, 0, 0, 0, 0, time.UTC)
	end := time.Date(2101, time.January, 1, 0, 0, 0, 0, time.UTC)
	prev := DateFromTime(start) - 1
	n := 0
	for tm := start; tm.Before(end); tm = tm.AddDate(0, 0, 1) {
		d := DateFromTime(tm)
		if d != prev+1 {
			t.Fatalf("%s: Date %d does not follow %d", tm.Format(time.DateOnly), d, prev)
		}
		prev = d
		want := tm.Format("2006-01-02")
		if d.String() != want {
			t.Fatalf("Date.String() = %q, want %q", d.String(), want)
		}
		if d.Weekday() != tm.Weekday() {
			t.Fatalf("%s: Weekday() = %v, want %v", want, d.Weekday(), tm.Weekday())
		}
		y, m, dd := d.Civil()
		if y != tm.Year() || m != tm.Month() || dd != tm.Day() {
			t.Fatalf("%s: Civil() = %d %d %d", want, y, m, dd)
		}
		if !d.Time().Equal(tm) {
			t.Fatalf("%s: Time() = %v", want, d.Time())
		}
		if DateOf(tm.Year(), tm.Month(), tm.Day()) != d {
			t.Fatalf("%s: DateOf disagrees with DateFromTime", want)
		}
		back, err := ParseDate(want)
		if err != nil || back != d {
			t.Fatalf("ParseDate(%q) = %v, %v; want %v", want, back, err, d)
		}
		text, _ := d.MarshalText()
		var u Date
		if err := u.UnmarshalText(text); err != nil || u != d {
			t.Fatalf("text round trip of %s: %v, %v", want, u, err)
		}
		n++
	}
	// 1900..2100 holds 201 years, 49 of them leap (1904..2096; not 1900, 2100).
	if n != 201*365+49 {
		t.Fatalf("walked %d days", n)
	}
	// The days since the epoch agree with Unix time.
	if got, want := int64(mustDate(t, "2026-03-18")), time.Date(2026, 3, 18, 0, 0, 0, 0, time.UTC).Unix()/86400; got != want {
		t.Fatalf("2026-03-18 = day %d, want %d", got, want)
	}
}

// TestDateFarYears compares with package time at years the fast path is
// not usually exercised on, including ones outside four digits.
func TestDateFarYears(t *testing.T) {
	for _, y := range []int{1, 2, 99, 100, 101, 399, 400, 401, 1000, 1582, 4000, 9999, 10000, 12345, 0, -1, -400, -401} {
		for _, md := range [][2]int{{1, 1}, {2, 28}, {3, 1}, {12, 31}} {
			tm := time.Date(y, time.Month(md[0]), md[1], 0, 0, 0, 0, time.UTC)
			d := DateOf(y, time.Month(md[0]), md[1])
			if !d.Time().Equal(tm) {
				t.Errorf("DateOf(%d,%d,%d).Time() = %v, want %v", y, md[0], md[1], d.Time(), tm)
			}
			if d.Weekday() != tm.Weekday() {
				t.Errorf("%v: Weekday = %v, want %v", tm, d.Weekday(), tm.Weekday())
			}
			if got, want := d.String(), tm.Format("2006-01-02"); got != want {
				t.Errorf("String() = %q, want %q", got, want)
			}
		}
	}
}

// TestDateOfNormalises checks that out-of-range months and days roll over
// exactly as time.Date does.
func TestDateOfNormalises(t *testing.T) {
	for _, y := range []int{1999, 2000, 2023, 2024} {
		for m := -30; m <= 30; m++ {
			for _, d := range []int{-40, -1, 0, 1, 15, 29, 31, 32, 60, 400} {
				want := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
				got := DateOf(y, time.Month(m), d)
				if !got.Time().Equal(want) {
					t.Fatalf("DateOf(%d, %d, %d) = %s, want %s", y, m, d, got, want.Format(time.DateOnly))
				}
			}
		}
	}
}

func TestDateFromTimeUsesLocation(t *testing.T) {
	loc := time.FixedZone("UTC+10", 10*3600)
	tm := time.Date(2026, 1, 1, 5, 0, 0, 0, loc) // 2025-12-31 19:00 UTC
	if got := DateFromTime(tm); got.String() != "2026-01-01" {
		t.Fatalf("DateFromTime = %s, want the date in tm's location", got)
	}
	if got := DateFromTime(tm.UTC()); got.String() != "2025-12-31" {
		t.Fatalf("DateFromTime(UTC) = %s", got)
	}
}

func TestAddDays(t *testing.T) {
	tests := []struct {
		from string
		n    int
		want string
	}{
		{"2024-02-28", 1, "2024-02-29"},
		{"2024-02-28", 2, "2024-03-01"},
		{"2023-02-28", 1, "2023-03-01"},
		{"2025-12-31", 1, "2026-01-01"},
		{"2026-01-01", -1, "2025-12-31"},
		{"2026-03-18", 0, "2026-03-18"},
		{"2026-01-01", 365, "2027-01-01"},
		{"2024-01-01", 366, "2025-01-01"},
	}
	for _, tt := range tests {
		if got := mustDate(t, tt.from).AddDays(tt.n).String(); got != tt.want {
			t.Errorf("%s + %d = %s, want %s", tt.from, tt.n, got, tt.want)
		}
	}
}

func TestRange(t *testing.T) {
	tests := []struct {
		start, end string
		days       int
	}{
		{"2026-01-01", "2026-01-02", 1},
		{"2026-01-01", "2026-02-01", 31},
		{"2026-02-01", "2026-03-01", 28},
		{"2024-02-01", "2024-03-01", 29},
		{"2026-01-01", "2027-01-01", 365},
		{"2024-01-01", "2025-01-01", 366},
		{"2016-01-01", "2026-01-01", 3653},
		{"2017-01-01", "2027-01-01", 3652},
		{"2026-01-01", "2026-01-01", 0},
	}
	for _, tt := range tests {
		r := Range{Start: mustDate(t, tt.start), End: mustDate(t, tt.end)}
		if r.Days() != tt.days {
			t.Errorf("[%s, %s).Days() = %d, want %d", tt.start, tt.end, r.Days(), tt.days)
		}
		if tt.days > 0 {
			if !r.Contains(r.Start) || !r.Contains(r.End-1) {
				t.Errorf("[%s, %s) does not contain its first and last day", tt.start, tt.end)
			}
		}
		if r.Contains(r.End) || r.Contains(r.Start-1) {
			t.Errorf("[%s, %s) contains a day outside it", tt.start, tt.end)
		}
	}
}

// TestMaxSpanDays: 3653 days is the longest ten calendar years can be
// (three leap days), so any ten-year range is allowed and nothing longer.
func TestMaxSpanDays(t *testing.T) {
	if MaxSpanDays != 3653 {
		t.Fatalf("MaxSpanDays = %d, docs/contract.md §3.2 says 3653", MaxSpanDays)
	}
	longest := 0
	for y := 1900; y <= 2200; y++ {
		for _, m := range []time.Month{time.January, time.March, time.July} {
			r := Range{Start: DateOf(y, m, 1), End: DateOf(y+10, m, 1)}
			if r.Days() > longest {
				longest = r.Days()
			}
		}
	}
	if longest != MaxSpanDays {
		t.Fatalf("the longest ten-year range has %d days, MaxSpanDays is %d", longest, MaxSpanDays)
	}
}

func TestDateJSON(t *testing.T) {
	d := mustDate(t, "2026-04-01")
	b, err := d.MarshalText()
	if err != nil || string(b) != "2026-04-01" {
		t.Fatalf("MarshalText = %q, %v", b, err)
	}
	var u Date
	if err := u.UnmarshalText([]byte("2026-02-30")); !errors.Is(err, ErrDateSyntax) {
		t.Fatalf("UnmarshalText of a bad date: %v", err)
	}
	if u != 0 {
		t.Fatalf("a failed UnmarshalText changed the date to %v", u)
	}
}
