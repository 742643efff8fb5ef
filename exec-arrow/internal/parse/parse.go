// Package parse reads the text of a CSV or NDJSON field as the value it
// spells: an integer, a real, a boolean, a date, a timestamp. Each parser
// gives what the reference reading gives (strconv, domain.ParseDate,
// time.Parse; the fuzz targets hold them equal), reads the usual
// spellings word at a time where the reference is slower, and reports a
// text it cannot read with false, never an error that could carry the
// text.
package parse

import (
	"math"
	"strconv"
	"time"
)

// Int parses the text of an integer as strconv.ParseInt(s, 10, 64)
// does: a sign, then decimal digits (FuzzParseInt holds them equal).
func Int(s string) (int64, bool) {
	digits := s
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		digits = s[1:]
	}
	if len(digits) == 0 {
		return 0, false
	}
	if len(digits) > 18 { // may pass int64: strconv judges
		v, err := strconv.ParseInt(s, 10, 64)
		return v, err == nil
	}
	// Up to 18 digits fit: read here, 5 ns against strconv's 12, and
	// without its error value for text that is no number (an inferred
	// column tries every value as one: 2 ns against 57).
	var v int64
	for i := 0; i < len(digits); i++ {
		c := digits[i] - '0'
		if c > 9 {
			return 0, false
		}
		v = v*10 + int64(c)
	}
	if s[0] == '-' {
		v = -v
	}
	return v, true
}

// Float parses the text of a real.
func Float(s string) (float64, bool) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

// Bool parses true or false.
func Bool(s string) (bool, bool) {
	switch s {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// Day parses a YYYY-MM-DD date as days since 1970-01-01, as
// domain.ParseDate does (FuzzParseDay holds them equal): its bytes tested
// in two word tests and its days read from a table of the days before each
// year, where the civil algorithm divided (3.5% of a CSV start's CPU on
// the demo's orders, whose two dates are read for most rows).
func Day(s string) (int32, bool) {
	if len(s) != 10 {
		return 0, false
	}
	return DayOfWords(Word(s, 0), uint64(s[8])|uint64(s[9])<<8)
}

// DayOfWords is Day of the YYYY-MM-DD text whose first eight bytes
// are the little-endian word a and whose last two are b.
func DayOfWords(a, b uint64) (int32, bool) {
	// As in zulu: a digit's lane holds 0x30-0x39 when its high half
	// is 3 and stays 3 once 6 is added; each dash is itself.
	if a&0xFFF0F0FFF0F0F0F0 != 0x2D30302D30303030 || (a+0x0006060006060606)&0x00F0F000F0F0F0F0 != 0x0030300030303030 ||
		b&0xF0F0 != 0x3030 || (b+0x0606)&0xF0F0 != 0x3030 {
		return 0, false
	}
	a, b = a-0x0030300030303030, b-0x3030
	lane := func(w uint64, i uint) int { return int(w >> (8 * i) & 0xFF) }
	y := lane(a, 0)*1000 + lane(a, 1)*100 + lane(a, 2)*10 + lane(a, 3)
	m, d := lane(a, 5)*10+lane(a, 6), lane(b, 0)*10+lane(b, 1)
	if y < 1 || m < 1 || m > 12 || d < 1 {
		return 0, false
	}
	yd := yearDays[y]
	leap := yd>>31 != 0
	if d > int(monthDays[m]) && (m != 2 || d > 29 || !leap) {
		return 0, false
	}
	days := int(yd&^(1<<31)) - 719162 + int(monthStarts[m]) + d - 1
	if leap && m > 2 {
		days++
	}
	return int32(days), true
}

// Micros parses an RFC 3339 timestamp as UTC microseconds, as
// time.Parse(time.RFC3339Nano, s) and Time.UnixMicro do. The usual
// spelling, "YYYY-MM-DDTHH:MM:SS" with up to nine digits of fraction and
// "Z", is read here (time.Parse took 31–35 ns a value, a seventh of the
// CPU sutura validate spent on a CSV file: docs/performance.md); any
// other is left to time.Parse (FuzzParseMicros holds them equal).
func Micros(s string) (int64, bool) {
	if us, ok := zulu(s); ok {
		return us, true
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, false
	}
	return t.UnixMicro(), true
}

// zulu reads "YYYY-MM-DDTHH:MM:SS[.fffffffff]Z" of a year from 1;
// ok is false for anything else, valid or not.
func zulu(s string) (us int64, ok bool) {
	n := len(s)
	if n < 20 || n > 30 || s[n-1] != 'Z' {
		return 0, false
	}
	// The first 20 bytes as words, a byte a lane: a digit's lane holds
	// 0x30-0x39 when its high half is 3 and stays 3 once 6 is added (no
	// lane is over 0x3F by then, so nothing carries into the next), and
	// each separator is itself. One test a word replaces one a byte.
	a, b, c := Word(s, 0), Word(s, 8), le32(s, 16)
	if a&0xFFF0F0FFF0F0F0F0 != 0x2D30302D30303030 || (a+0x0006060006060606)&0x00F0F000F0F0F0F0 != 0x0030300030303030 ||
		b&0xF0F0FFF0F0FFF0F0 != 0x30303A3030543030 || (b+0x0606000606000606)&0xF0F000F0F000F0F0 != 0x3030003030003030 ||
		c&0x00F0F0FF != 0x0030303A || (c+0x00060600)&0x00F0F000 != 0x00303000 {
		return 0, false
	}
	// The digits' values, '0' taken from each digit's lane alone.
	a, b, c = a-0x0030300030303030, b-0x3030003030003030, c-0x00303000
	lane := func(w uint64, i uint) int { return int(w >> (8 * i) & 0xFF) }
	y := lane(a, 0)*1000 + lane(a, 1)*100 + lane(a, 2)*10 + lane(a, 3)
	m, d := lane(a, 5)*10+lane(a, 6), lane(b, 0)*10+lane(b, 1)
	h, mi, sec := lane(b, 3)*10+lane(b, 4), lane(b, 6)*10+lane(b, 7), int(c>>8&0xFF)*10+int(c>>16&0xFF)
	if y < 1 || m < 1 || m > 12 || d < 1 || h > 23 || mi > 59 || sec > 59 {
		return 0, false
	}
	yd := yearDays[y]
	leap := yd>>31 != 0 // the top bit marks a leap year
	if d > int(monthDays[m]) && (m != 2 || d > 29 || !leap) {
		return 0, false
	}
	days := int(yd&^(1<<31)) - 719162 + int(monthStarts[m]) + d - 1
	if leap && m > 2 {
		days++
	}
	us = (int64(days)*86400 + int64(h*3600+mi*60+sec)) * 1e6
	if n == 20 {
		return us, true
	}
	if s[19] != '.' || n == 21 {
		return 0, false
	}
	ns := 0
	for i := 20; i < n-1; i++ {
		c := s[i] - '0'
		if c > 9 {
			return 0, false
		}
		ns = ns*10 + int(c)
	}
	for range 30 - n {
		ns *= 10
	}
	return us + int64(ns/1000), true
}

// Word is the 8 bytes of s from i as a little-endian word, le32 the 4:
// the compiler reads each in one load (and inlines Word where it is
// called).
func Word(s string, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

func le32(s string, i int) uint64 {
	_ = s[i+3]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24
}

// monthDays is the days of each month (February: of a common year), and
// monthStarts the days of a common year before each.
var (
	monthDays   = [13]uint16{0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}
	monthStarts = [13]uint16{0, 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334}
)

// yearDays[y] is the days from 0001-01-01 to y-01-01 of the proleptic
// Gregorian calendar, its top bit set when y is a leap year: zulu
// reads a date's days from it and monthStarts without a division.
var yearDays = func() (t [10000]uint32) {
	days := uint32(0)
	for y := 1; y < len(t); y++ {
		t[y] = days
		n := uint32(365)
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			t[y] |= 1 << 31
			n++
		}
		days += n
	}
	return t
}()
