package domain

import (
	"errors"
	"time"
)

// MaxSpanDays is the longest range a question may cover: ten years with
// three leap days, the most ten calendar years can hold.
const MaxSpanDays = 3653

// Date is a calendar date without a time zone, stored as days since
// 1970-01-01. The zero Date is 1970-01-01. Dates are comparable with <.
type Date int32

// ErrDateSyntax is the problem of text that is not an ISO date
// (YYYY-MM-DD, years 0001–9999, a day the month has).
var ErrDateSyntax = errors.New("is not a date (YYYY-MM-DD)")

// ParseDate parses an ISO 8601 calendar date, YYYY-MM-DD exactly. The error
// never contains the text.
func ParseDate(s string) (Date, error) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return 0, ErrDateSyntax
	}
	num := func(t string) (int, bool) {
		n := 0
		for i := 0; i < len(t); i++ {
			if t[i] < '0' || t[i] > '9' {
				return 0, false
			}
			n = n*10 + int(t[i]-'0')
		}
		return n, true
	}
	y, ok1 := num(s[0:4])
	m, ok2 := num(s[5:7])
	d, ok3 := num(s[8:10])
	if !ok1 || !ok2 || !ok3 || y < 1 || m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return 0, ErrDateSyntax
	}
	return DateOf(y, time.Month(m), d), nil
}

// DateOf returns the date of year y, month m, day d. Out-of-range months and
// days normalise as time.Date does.
func DateOf(y int, m time.Month, d int) Date {
	return Date(daysFromCivil(y, int(m), d))
}

// DateFromTime returns the calendar date of t in t's location.
func DateFromTime(t time.Time) Date {
	y, m, d := t.Date()
	return DateOf(y, m, d)
}

// Civil returns the year, month and day of d.
func (d Date) Civil() (year int, month time.Month, day int) {
	y, m, dd := civilFromDays(int64(d))
	return y, time.Month(m), dd
}

// String renders d as YYYY-MM-DD, the canonical rendering of a date cell.
// A year outside 0000–9999 is written as package time writes it (more
// digits, or a sign) rather than wrapped into four wrong digits.
func (d Date) String() string {
	y, m, dd := d.Civil()
	if y < 0 || y > 9999 {
		return d.Time().Format("2006-01-02")
	}
	var b [10]byte
	put := func(i, n, w int) {
		for k := w - 1; k >= 0; k-- {
			b[i+k] = byte('0' + n%10)
			n /= 10
		}
	}
	put(0, y, 4)
	b[4] = '-'
	put(5, int(m), 2)
	b[7] = '-'
	put(8, dd, 2)
	return string(b[:])
}

// AddDays returns d moved by n days.
func (d Date) AddDays(n int) Date { return d + Date(n) }

// Weekday returns the day of the week of d.
func (d Date) Weekday() time.Weekday {
	// 1970-01-01 was a Thursday.
	w := (int64(d) + 4) % 7
	if w < 0 {
		w += 7
	}
	return time.Weekday(w)
}

// Time returns midnight UTC of d.
func (d Date) Time() time.Time {
	y, m, dd := d.Civil()
	return time.Date(y, m, dd, 0, 0, 0, 0, time.UTC)
}

func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil and civilFromDays are Howard Hinnant's proleptic Gregorian
// conversions; they avoid time.Time on the engine's hot path.
func daysFromCivil(y, m, d int) int64 {
	// Normalise month overflow as time.Date does.
	y += (m - 1) / 12
	m = (m-1)%12 + 1
	if m <= 0 {
		m += 12
		y--
	}
	yy := int64(y)
	if m <= 2 {
		yy--
	}
	era := yy / 400
	if yy < 0 && yy%400 != 0 {
		era--
	}
	yoe := yy - era*400
	mp := int64((m + 9) % 12)
	doy := (153*mp+2)/5 + int64(d) - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

func civilFromDays(z int64) (int, int, int) {
	z += 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y := yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d := doy - (153*mp+2)/5 + 1
	m := mp + 3
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		y++
	}
	return int(y), int(m), int(d)
}

// Range is a half-open span of dates: Start is included, End is not.
type Range struct {
	Start Date `json:"start"`
	End   Date `json:"end"`
}

// Days returns the number of days in r.
func (r Range) Days() int { return int(r.End - r.Start) }

// Contains reports whether d lies in r.
func (r Range) Contains(d Date) bool { return r.Start <= d && d < r.End }

// MarshalText renders d as YYYY-MM-DD.
func (d Date) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText parses YYYY-MM-DD.
func (d *Date) UnmarshalText(b []byte) error {
	v, err := ParseDate(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}
