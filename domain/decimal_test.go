package domain

import (
	"math/big"
	"testing"
)

func TestDecimalRendering(t *testing.T) {
	for _, tc := range []struct {
		coef  string
		scale int32
		want  string
	}{
		{"0", 0, "0"}, {"0", 9, "0"}, {"-0", 2, "0"}, {"000", 2, "0"},
		{"1", 0, "1"}, {"150", 2, "1.5"}, {"100", 2, "1"}, {"-5", 2, "-0.05"},
		{"76014193", 2, "760141.93"}, {"12", -3, "12000"}, {"-12", -1, "-120"},
		{"99999999999999999999999999999999999999", 38, "0.99999999999999999999999999999999999999"},
		{"123456789012345678901234567890123456789", 1, "12345678901234567890123456789012345678.9"},
	} {
		v, _ := new(big.Int).SetString(tc.coef, 10)
		if got := DecimalCell(v, tc.scale).Render(); got != tc.want {
			t.Errorf("DecimalCell(%s, %d) = %q, want %q", tc.coef, tc.scale, got, tc.want)
		}
		if v.IsInt64() {
			if got := Decimal64(v.Int64(), tc.scale).Render(); got != tc.want {
				t.Errorf("Decimal64(%s, %d) = %q, want %q", tc.coef, tc.scale, got, tc.want)
			}
		}
	}
	if got := Decimal64(-9223372036854775808, 0).Render(); got != "-9223372036854775808" {
		t.Errorf("Decimal64(MinInt64) = %q", got)
	}
}

func TestDecimalText(t *testing.T) {
	for in, want := range map[string]string{
		"1.50": "1.5", "-0.00": "0", "+3": "3", ".5": "0.5", "5.": "5", "1.5e3": "1500", "15e-4": "0.0015", "-1E2": "-100",
	} {
		c, ok := DecimalText(in)
		if !ok || c.Render() != want || c.Kind() != KindDecimal {
			t.Errorf("DecimalText(%q) = %q %v, want %q", in, c.Render(), ok, want)
		}
	}
	for _, bad := range []string{"", "-", ".", "1e", "1.2.3", "abc", "1e5000", "0x10", " 1"} {
		if _, ok := DecimalText(bad); ok {
			t.Errorf("DecimalText(%q) is accepted", bad)
		}
	}
	c, _ := DecimalText("0.1")
	if c.FloatValue() != 0.1 {
		t.Errorf("FloatValue of 0.1 = %v", c.FloatValue())
	}
	coef, scale, ok := c.DecimalValue()
	if !ok || coef.Int64() != 1 || scale != 1 {
		t.Errorf("DecimalValue of 0.1 = %v %d %v", coef, scale, ok)
	}
}

func TestDecimalProblem(t *testing.T) {
	two, forty := 2, 40
	for _, tc := range []struct {
		c    ModelColumn
		fine bool
	}{
		{ModelColumn{Type: TypeDecimal}, true},
		{ModelColumn{Type: TypeDecimal, Precision: 18, Scale: &two}, true},
		{ModelColumn{Type: TypeDecimal, Scale: &two}, true},
		{ModelColumn{Type: TypeFloat, Scale: &two}, false},
		{ModelColumn{Type: TypeDecimal, Precision: 39}, false},
		{ModelColumn{Type: TypeDecimal, Precision: 1, Scale: &two}, false},
		{ModelColumn{Type: TypeDecimal, Scale: &forty}, false},
	} {
		if got := tc.c.DecimalProblem() == ""; got != tc.fine {
			t.Errorf("%+v: fine %v, want %v (%s)", tc.c, got, tc.fine, tc.c.DecimalProblem())
		}
	}
}
