package domain

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// pointOne and pointTwo are variables so that 0.1+0.2 is computed in
// float64 at run time; as constants Go would add them exactly.
var pointOne, pointTwo = 0.1, 0.2

func TestCellRender(t *testing.T) {
	tests := []struct {
		name string
		c    Cell
		want string
		kind Kind
	}{
		{"null", Null(), "null", KindNull},
		{"zero Cell", Cell{}, "null", KindNull},
		{"int zero", Int(0), "0", KindInt},
		{"int", Int(42), "42", KindInt},
		{"negative int", Int(-7), "-7", KindInt},
		{"max int64", Int(math.MaxInt64), "9223372036854775807", KindInt},
		{"min int64", Int(math.MinInt64), "-9223372036854775808", KindInt},
		{"0.1+0.2", Float(pointOne + pointTwo), "0.30000000000000004", KindFloat},
		{"0.1", Float(0.1), "0.1", KindFloat},
		{"1e21 without exponent", Float(1e21), "1000000000000000000000", KindFloat},
		{"1e-7 without exponent", Float(1e-7), "0.0000001", KindFloat},
		{"whole real", Float(2.0), "2", KindFloat},
		{"negative whole real", Float(-3.0), "-3", KindFloat},
		{"negative real", Float(-1.5), "-1.5", KindFloat},
		{"zero real", Float(0), "0", KindFloat},
		{"negative zero", Float(math.Copysign(0, -1)), "0", KindFloat},
		{"third", Float(1.0 / 3.0), "0.3333333333333333", KindFloat},
		{"2^53+2", Float(9007199254740994), "9007199254740994", KindFloat},
		{"smallest normal", Float(2.2250738585072014e-308), "0." + strings.Repeat("0", 307) + "22250738585072014", KindFloat},
		{"NaN", Float(math.NaN()), "null", KindNull},
		{"+Inf", Float(math.Inf(1)), "null", KindNull},
		{"-Inf", Float(math.Inf(-1)), "null", KindNull},
		{"text", Text("East"), "East", KindText},
		{"text verbatim", Text(" a\tb\n\"c\" null "), " a\tb\n\"c\" null ", KindText},
		{"empty text", Text(""), "", KindText},
		{"text that says null", Text("null"), "null", KindText},
		{"date", DateCell(DateOf(2026, 3, 1)), "2026-03-01", KindDate},
		{"epoch date", DateCell(0), "1970-01-01", KindDate},
		{"date before the epoch", DateCell(DateOf(1969, 12, 31)), "1969-12-31", KindDate},
		{"true", Bool(true), "true", KindBool},
		{"false", Bool(false), "false", KindBool},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.c.Render(); got != tt.want {
				t.Errorf("Render() = %q, want %q", got, tt.want)
			}
			if tt.c.Kind() != tt.kind {
				t.Errorf("Kind() = %v, want %v", tt.c.Kind(), tt.kind)
			}
			if tt.c.IsNull() != (tt.kind == KindNull) {
				t.Errorf("IsNull() = %v", tt.c.IsNull())
			}
			if strings.ContainsAny(tt.c.Render(), "eE") && tt.kind == KindFloat {
				t.Errorf("a real rendered in exponent form: %s", tt.c.Render())
			}
		})
	}
}

// TestFloatRenderRoundTrips: the rendering of a real parses back to the
// same float and never uses exponent form or a trailing ".0".
func TestFloatRenderRoundTrips(t *testing.T) {
	xs := []float64{1, 10, 100, 1e15, 1e16, 1e20, 1e21, 1e22, 1e100, 123456789.125, 1e-5, 1e-6, 1e-7, 5e-324, math.MaxFloat64, math.SmallestNonzeroFloat64, 0.5, 1.0 / 7}
	for _, x := range xs {
		for _, v := range []float64{x, -x} {
			s := Float(v).Render()
			if strings.ContainsAny(s, "eE+") || strings.HasSuffix(s, ".0") {
				t.Errorf("%v renders as %q", v, s)
			}
			back, err := parseDecimal(s)
			if err != nil || back != v {
				t.Errorf("%q parses to %v, %v; want %v", s, back, err, v)
			}
		}
	}
}

func parseDecimal(s string) (float64, error) {
	var f float64
	err := json.Unmarshal([]byte(s), &f)
	return f, err
}

func TestCellJSON(t *testing.T) {
	row := []Cell{Null(), Int(-5), Float(2.0), Float(math.NaN()), Text(`say "hi"`), DateCell(DateOf(2026, 1, 1)), Bool(true)}
	b, err := json.Marshal(row)
	if err != nil {
		t.Fatal(err)
	}
	want := `[null,"-5","2",null,"say \"hi\"","2026-01-01","true"]`
	if string(b) != want {
		t.Fatalf("cells JSON = %s, want %s", b, want)
	}
}

func TestRenderedBytes(t *testing.T) {
	rs := &RowSet{
		Columns: []Column{{Name: "area", Role: RoleDimension}, {Name: "period", Role: RolePeriod}, {Name: "net_sales", Role: RoleMetric}},
		Rows: [][]Cell{
			{Text("east"), DateCell(DateOf(2026, 1, 1)), Float(1.5)}, // 4 + 10 + 3
			{Text("Zürich"), DateCell(DateOf(2026, 2, 1)), Null()},   // 7 (ü is two bytes) + 10 + 4
			{Text(""), DateCell(DateOf(2026, 3, 1)), Int(-100)},      // 0 + 10 + 4
		},
	}
	if got, want := rs.RenderedBytes(), 17+21+14; got != want {
		t.Fatalf("RenderedBytes = %d, want %d", got, want)
	}
	if (&RowSet{}).RenderedBytes() != 0 {
		t.Fatal("an empty row set has rendered bytes")
	}
	if MaxResultBytes != 8<<20 || MaxRowCap != 10000 {
		t.Fatalf("bounds: %d bytes, %d rows; docs/contract.md §4.1 says 8 MiB and 10 000", MaxResultBytes, MaxRowCap)
	}
}

func TestOutcomeAnswerJSON(t *testing.T) {
	a := &Answer{
		RowSet: RowSet{
			Columns: []Column{{Name: "area", Role: RoleDimension}, {Name: "period", Role: RolePeriod}, {Name: "net_sales", Role: RoleMetric}},
			Rows:    [][]Cell{{Text("east"), DateCell(DateOf(2026, 1, 1)), Float(pointOne + pointTwo)}, {Text("west"), DateCell(DateOf(2026, 1, 1)), Null()}},
		},
		Provenance: Provenance{
			DefinitionVersion: "v1",
			DefinitionDigest:  strings.Repeat("a", 64),
			MetricDigests:     []MetricDigest{{Metric: "net_sales", Digest: strings.Repeat("b", 64)}},
			ExecutedAs:        []ExecutedAs{{Source: "warehouse", Posture: SharedServiceUser}},
		},
	}
	o := Answered(a)
	if o.Kind() != "answer" || o.Answer != a || o.Refusal != nil {
		t.Fatalf("Answered: %+v", o)
	}
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"outcome":"answer",` +
		`"columns":[{"name":"area","role":"dimension"},{"name":"period","role":"period"},{"name":"net_sales","role":"metric"}],` +
		`"rows":[["east","2026-01-01","0.30000000000000004"],["west","2026-01-01",null]],` +
		`"provenance":{"definition_version":"v1","definition_digest":"` + strings.Repeat("a", 64) + `",` +
		`"metric_digests":[{"metric":"net_sales","digest":"` + strings.Repeat("b", 64) + `"}],` +
		`"executed_as":[{"source":"warehouse","posture":"shared-service-user"}]}}`
	if string(b) != want {
		t.Fatalf("answer JSON =\n%s\nwant\n%s", b, want)
	}
}

// TestOutcomeEmptyAnswerJSON: an answer with no rows (nothing happened in
// the range) is still an answer whose lists are JSON arrays, not null, so a
// caller can iterate them and the output schema (arrays) holds.
func TestOutcomeEmptyAnswerJSON(t *testing.T) {
	a := &Answer{Provenance: Provenance{DefinitionVersion: "v1", DefinitionDigest: "d"}}
	b, err := json.Marshal(Answered(a))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"columns", "rows"} {
		if _, ok := m[k].([]any); !ok {
			t.Errorf("%s = %v in %s, want an array", k, m[k], b)
		}
	}
	p := m["provenance"].(map[string]any)
	for _, k := range []string{"metric_digests", "executed_as"} {
		if _, ok := p[k].([]any); !ok {
			t.Errorf("provenance.%s = %v in %s, want an array", k, p[k], b)
		}
	}
	if a.Rows != nil || a.Provenance.MetricDigests != nil {
		t.Error("marshalling changed the answer")
	}
}

func TestOutcomeRefusalJSON(t *testing.T) {
	o := Refused(Refuse(DimensionNotFilterable, "dimension %s of metric %s is not filterable", "area", "net_sales"))
	if o.Kind() != "refusal" || o.Answer != nil || o.Refusal == nil {
		t.Fatalf("Refused: %+v", o)
	}
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"outcome":"refusal","reason":{"code":"dimension_not_filterable","detail":"dimension area of metric net_sales is not filterable"}}`
	if string(b) != want {
		t.Fatalf("refusal JSON = %s, want %s", b, want)
	}
}

func TestOutcomeEmptyIsAnError(t *testing.T) {
	if _, err := json.Marshal(Outcome{}); err == nil {
		t.Fatal("an outcome with neither answer nor refusal marshalled")
	}
}

func TestPostures(t *testing.T) {
	if SharedServiceUser == ImpersonationAtSource || SharedServiceUser == "" || ImpersonationAtSource == "" {
		t.Fatal("postures must be distinct and non-empty")
	}
}

func TestCellValues(t *testing.T) {
	for _, tc := range []struct {
		c     Cell
		i     int64
		f     float64
		d     Date
		b     bool
		shown string
	}{
		{Int(-7), -7, -7, 0, false, "-7"},
		{Float(2.5), 0, 2.5, 0, false, "2.5"},
		{DateCell(DateOf(2025, 3, 1)), 0, 0, DateOf(2025, 3, 1), false, "2025-03-01"},
		{Bool(true), 0, 0, 0, true, "true"},
		{Bool(false), 0, 0, 0, false, "false"},
		{Text("7"), 0, 0, 0, false, "7"},
		{Null(), 0, 0, 0, false, "null"},
	} {
		if tc.c.IntValue() != tc.i || tc.c.FloatValue() != tc.f || tc.c.DateValue() != tc.d || tc.c.BoolValue() != tc.b || tc.c.Render() != tc.shown {
			t.Errorf("%s: %d %v %v %v", tc.shown, tc.c.IntValue(), tc.c.FloatValue(), tc.c.DateValue(), tc.c.BoolValue())
		}
	}
}
