package domain

import "time"

// Grain is the width of a time bucket. The zero Grain is invalid.
type Grain uint8

// The five grains, finest first. Weeks start on Monday.
const (
	Day Grain = iota + 1
	Week
	Month
	Quarter
	Year
)

// Grains lists every grain, finest first.
var Grains = []Grain{Day, Week, Month, Quarter, Year}

var grainNames = [...]string{Day: "day", Week: "week", Month: "month", Quarter: "quarter", Year: "year"}

// String returns the grain's name as it is written in catalogues and
// questions.
func (g Grain) String() string {
	if g < Day || g > Year {
		return "invalid"
	}
	return grainNames[g]
}

// ParseGrain returns the grain named s, or false.
func ParseGrain(s string) (Grain, bool) {
	for _, g := range Grains {
		if grainNames[g] == s {
			return g, true
		}
	}
	return 0, false
}

// MarshalText renders the grain's name.
func (g Grain) MarshalText() ([]byte, error) { return []byte(g.String()), nil }

// Truncate returns the first day of the bucket of grain g holding d.
func (g Grain) Truncate(d Date) Date {
	switch g {
	case Day:
		return d
	case Week:
		off := (int(d.Weekday()) + 6) % 7 // Monday = 0
		return d - Date(off)
	}
	y, m, _ := d.Civil()
	switch g {
	case Month:
		return DateOf(y, m, 1)
	case Quarter:
		return DateOf(y, m-(m-1)%3, 1)
	case Year:
		return DateOf(y, time.January, 1)
	}
	return d
}

// Add returns the start of the bucket n buckets after the one starting at d
// (d must be a bucket start of g; n may be negative).
func (g Grain) Add(d Date, n int) Date {
	switch g {
	case Day:
		return d + Date(n)
	case Week:
		return d + Date(7*n)
	}
	y, m, day := d.Civil()
	switch g {
	case Month:
		return DateOf(y, m+time.Month(n), day)
	case Quarter:
		return DateOf(y, m+time.Month(3*n), day)
	case Year:
		return DateOf(y+n, m, day)
	}
	return d
}

// IsPeriod reports whether r covers exactly one bucket of grain g.
func (g Grain) IsPeriod(r Range) bool {
	return g.Truncate(r.Start) == r.Start && g.Add(r.Start, 1) == r.End
}

// UnmarshalText parses a grain's name.
func (g *Grain) UnmarshalText(b []byte) error {
	v, ok := ParseGrain(string(b))
	if !ok {
		return errorString("is not a grain (day, week, month, quarter, year)")
	}
	*g = v
	return nil
}
