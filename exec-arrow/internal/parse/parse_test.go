package parse

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"sutura.dev/domain"
)

// referenceMicros is what Micros must give: time.Parse's reading.
func referenceMicros(s string) (int64, bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, false
	}
	return t.UnixMicro(), true
}

// timestampLike is a timestamp of the usual spelling from rng, now and
// then out of range or damaged in one byte, with 0 to 10 digits of
// fraction, and now and then another zone.
func timestampLike(rng *rand.Rand) string {
	s := fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02d", rng.IntN(10000), 1+rng.IntN(13), 1+rng.IntN(32),
		rng.IntN(25), rng.IntN(61), rng.IntN(61))
	if k := rng.IntN(12); k > 0 {
		s += "." + fmt.Sprintf("%010d", rng.Int64N(1e10))[:k-1]
	}
	switch rng.IntN(10) {
	case 0:
		s += "+02:00"
	case 1:
		s += "z"
	default:
		s += "Z"
	}
	if rng.IntN(8) == 0 {
		b := []byte(s)
		b[rng.IntN(len(b))] = "0123456789-:T.Z x"[rng.IntN(17)]
		s = string(b)
	}
	return s
}

// TestParseMicrosAsTimeParse: on timestamps of every year from 0 to
// 9999, with fractions of every length, out-of-range fields, other zones
// and damaged bytes, Micros gives time.Parse's answer.
func TestParseMicrosAsTimeParse(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	fast := 0
	for range 300_000 {
		s := timestampLike(rng)
		got, gotOK := Micros(s)
		want, wantOK := referenceMicros(s)
		if got != want || gotOK != wantOK {
			t.Fatalf("%q: Micros %d %v, time.Parse %d %v", s, got, gotOK, want, wantOK)
		}
		if _, ok := zulu(s); ok {
			fast++
		}
	}
	if fast < 50_000 {
		t.Fatalf("only %d of the timestamps were read without time.Parse", fast)
	}
	for _, s := range []string{"1970-01-01T00:00:00Z", "1969-12-31T23:59:59.999999999Z", "0001-01-01T00:00:00.000001Z",
		"2024-02-29T12:00:00.5Z", "2023-02-29T12:00:00Z", "2025-06-01T24:00:00Z", "2025-06-01T23:59:60Z", "2025-06-01T00:00:00.Z"} {
		got, gotOK := Micros(s)
		want, wantOK := referenceMicros(s)
		if got != want || gotOK != wantOK {
			t.Fatalf("%q: Micros %d %v, time.Parse %d %v", s, got, gotOK, want, wantOK)
		}
	}
}

// FuzzParseMicros: for any text, Micros gives what time.Parse with
// RFC 3339 and Time.UnixMicro give, valid or not.
func FuzzParseMicros(f *testing.F) {
	for _, s := range []string{"2025-06-01T12:34:56Z", "2025-06-01T12:34:56.123456789Z", "0000-01-01T00:00:00Z",
		"2025-06-01T12:34:56+02:00", "2025-13-01T00:00:00Z", "2025-06-01T12:34:56.1234567891Z", "2025-06-01t12:34:56z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, gotOK := Micros(s)
		want, wantOK := referenceMicros(s)
		if got != want || gotOK != wantOK {
			t.Fatalf("%q: Micros %d %v, time.Parse %d %v", s, got, gotOK, want, wantOK)
		}
	})
}

// BenchmarkParseMicros reads a CSV file's usual timestamps, without and
// with a fraction, and one time.Parse must read.
func BenchmarkParseMicros(b *testing.B) {
	for _, s := range []string{"2024-08-27T08:52:32Z", "2024-08-27T08:52:32.123456Z", "2024-08-27T08:52:32+02:00"} {
		b.Run(s, func(b *testing.B) {
			for b.Loop() {
				if _, ok := Micros(s); !ok {
					b.Fatal("not read")
				}
			}
		})
		b.Run(s+"/time.Parse", func(b *testing.B) {
			for b.Loop() {
				if _, ok := referenceMicros(s); !ok {
					b.Fatal("not read")
				}
			}
		})
	}
}

// referenceInt is what Int must give: strconv's reading.
func referenceInt(s string) (int64, bool) {
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil
}

// TestParseIntAsStrconv: integers of every length to 20 digits, signed
// or not, at and past the int64 bounds, and text that is none, read as
// strconv.ParseInt reads them.
func TestParseIntAsStrconv(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	cases := []string{"", "-", "+", "0", "-0", "+7", "007", "9223372036854775807", "-9223372036854775808",
		"9223372036854775808", "-9223372036854775809", "999999999999999999", "1_000", "0x10", " 1", "1 ", "1e3", "--1"}
	for range 200_000 {
		s := strconv.FormatUint(rng.Uint64()>>rng.IntN(64), 10)
		switch rng.IntN(6) {
		case 0:
			s = "-" + s
		case 1:
			s = "+" + s
		case 2:
			b := []byte(s)
			b[rng.IntN(len(b))] = "0123456789-+ .x"[rng.IntN(15)]
			s = string(b)
		}
		cases = append(cases, s)
	}
	for _, s := range cases {
		got, gotOK := Int(s)
		want, wantOK := referenceInt(s)
		if got != want || gotOK != wantOK {
			t.Fatalf("%q: Int %d %v, strconv %d %v", s, got, gotOK, want, wantOK)
		}
	}
}

// FuzzParseInt: for any text, Int gives what strconv.ParseInt in
// base 10 gives.
func FuzzParseInt(f *testing.F) {
	for _, s := range []string{"0", "-12", "+3", "9223372036854775807", "-9223372036854775809", "1_0", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, gotOK := Int(s)
		want, wantOK := referenceInt(s)
		if got != want || gotOK != wantOK {
			t.Fatalf("%q: Int %d %v, strconv %d %v", s, got, gotOK, want, wantOK)
		}
	})
}

// BenchmarkParseInt reads an id of seven digits, and text that is none.
func BenchmarkParseInt(b *testing.B) {
	for _, s := range []string{"1754285", "mobile"} {
		b.Run(s, func(b *testing.B) {
			for b.Loop() {
				Int(s)
			}
		})
		b.Run(s+"/strconv", func(b *testing.B) {
			for b.Loop() {
				referenceInt(s)
			}
		})
	}
}

// TestParseDayAsParseDate: on every day of years 1 to 9999 sampled, the
// days around each month's end, out-of-range fields and damaged bytes,
// Day gives domain.ParseDate's answer.
func TestParseDayAsParseDate(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	check := func(s string) {
		t.Helper()
		got, gotOK := Day(s)
		want, err := domain.ParseDate(s)
		if gotOK != (err == nil) || gotOK && got != int32(want) {
			t.Fatalf("%q: Day %d %v, domain.ParseDate %d %v", s, got, gotOK, want, err)
		}
	}
	valid := 0
	for range 200_000 {
		b := []byte(fmt.Sprintf("%04d-%02d-%02d", rng.IntN(10000), rng.IntN(14), rng.IntN(33)))
		if rng.IntN(8) == 0 {
			b[rng.IntN(len(b))] = byte(rng.IntN(256))
		}
		if _, err := domain.ParseDate(string(b)); err == nil {
			valid++
		}
		check(string(b))
	}
	if valid < 50_000 {
		t.Fatalf("only %d of the dates were valid", valid)
	}
	for _, s := range []string{"1970-01-01", "0001-01-01", "9999-12-31", "2024-02-29", "2023-02-29", "1900-02-29", "2000-02-29",
		"2025-04-31", "2025-00-10", "2025-06-00", "2025-6-01", "2025/06/01", "2025-06-01T", "+025-06-01", "2025-06-0a", ""} {
		check(s)
	}
}

// FuzzParseDay: for any text, Day gives what domain.ParseDate gives,
// valid or not.
func FuzzParseDay(f *testing.F) {
	for _, s := range []string{"2025-06-01", "0000-01-01", "2024-02-29", "2025-13-01", "2025-06-1", "2025:06:01"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, gotOK := Day(s)
		want, err := domain.ParseDate(s)
		if gotOK != (err == nil) || gotOK && got != int32(want) {
			t.Fatalf("%q: Day %d %v, domain.ParseDate %d %v", s, got, gotOK, want, err)
		}
	})
}

// BenchmarkParseDay reads a usual date, and domain.ParseDate the same.
func BenchmarkParseDay(b *testing.B) {
	const s = "2025-06-14"
	b.Run("Day", func(b *testing.B) {
		for b.Loop() {
			if _, ok := Day(s); !ok {
				b.Fatal("not read")
			}
		}
	})
	b.Run("domain.ParseDate", func(b *testing.B) {
		for b.Loop() {
			if _, err := domain.ParseDate(s); err != nil {
				b.Fatal(err)
			}
		}
	})
}
