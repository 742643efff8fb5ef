package domain

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// rng returns a fixed range from two ISO dates.
func rng(t testing.TB, start, end string) *Range {
	t.Helper()
	return &Range{Start: mustDate(t, start), End: mustDate(t, end)}
}

func TestParseQuestionValid(t *testing.T) {
	values := func(n int) (string, []string) {
		var raw []string
		var vals []string
		for i := 0; i < n; i++ {
			v := fmt.Sprintf("v%d", i)
			raw = append(raw, `"`+v+`"`)
			vals = append(vals, v)
		}
		return "[" + strings.Join(raw, ",") + "]", vals
	}
	raw64, vals64 := values(64)

	tests := []struct {
		name string
		in   string
		want Question
	}{
		{
			name: "the example of docs/contract.md §3.1",
			in: `{"metrics": ["net_sales"],
 "grain": "month",
 "range": {"start": "2026-01-01", "end": "2026-04-01"},
 "dimensions": ["area"],
 "filters": [{"op": "eq", "dimension": "area", "value": "east"}],
 "top": {"n": 5, "by": "metric", "direction": "desc"}}`,
			want: Question{
				Metrics:    []string{"net_sales"},
				Grain:      Month,
				Range:      TimeSpan{Fixed: rng(t, "2026-01-01", "2026-04-01")},
				Dimensions: []string{"area"},
				Filters:    []Filter{{Op: OpEq, Dimension: "area", Values: []string{"east"}}},
				Top:        &Top{N: 5, By: ByMetric, Direction: "desc"},
			},
		},
		{
			name: "the example with keys in another order",
			in:   `{"top":{"direction":"desc","by":"metric","n":5},"filters":[{"value":"east","dimension":"area","op":"eq"}],"dimensions":["area"],"range":{"end":"2026-04-01","start":"2026-01-01"},"grain":"month","metrics":["net_sales"]}`,
			want: Question{
				Metrics:    []string{"net_sales"},
				Grain:      Month,
				Range:      TimeSpan{Fixed: rng(t, "2026-01-01", "2026-04-01")},
				Dimensions: []string{"area"},
				Filters:    []Filter{{Op: OpEq, Dimension: "area", Values: []string{"east"}}},
				Top:        &Top{N: 5, By: ByMetric, Direction: "desc"},
			},
		},
		{
			name: "only the required fields",
			in:   `{"metrics":["orders"],"grain":"day","range":{"start":"2026-03-01","end":"2026-03-02"}}`,
			want: Question{Metrics: []string{"orders"}, Grain: Day, Range: TimeSpan{Fixed: rng(t, "2026-03-01", "2026-03-02")}},
		},
		{
			name: "empty optional lists",
			in:   `{"metrics":["orders"],"grain":"week","range":{"start":"2026-03-02","end":"2026-03-30"},"dimensions":[],"filters":[]}`,
			want: Question{Metrics: []string{"orders"}, Grain: Week, Range: TimeSpan{Fixed: rng(t, "2026-03-02", "2026-03-30")}},
		},
		{
			name: "in and not_in, several metrics and dimensions",
			in: `{"metrics":["net_sales","orders"],"grain":"quarter","range":{"start":"2024-02-29","end":"2026-01-01"},
			"dimensions":["area","channel"],
			"filters":[{"op":"in","dimension":"area","values":["east","west","North East"]},
			           {"op":"not_in","dimension":"channel","values":["web"]}]}`,
			want: Question{
				Metrics:    []string{"net_sales", "orders"},
				Grain:      Quarter,
				Range:      TimeSpan{Fixed: rng(t, "2024-02-29", "2026-01-01")},
				Dimensions: []string{"area", "channel"},
				Filters: []Filter{
					{Op: OpIn, Dimension: "area", Values: []string{"east", "west", "North East"}},
					{Op: OpNotIn, Dimension: "channel", Values: []string{"web"}},
				},
			},
		},
		{
			name: "in with 64 values",
			in:   `{"metrics":["m"],"grain":"year","range":{"start":"2020-01-01","end":"2026-01-01"},"filters":[{"op":"in","dimension":"d","values":` + raw64 + `}]}`,
			want: Question{
				Metrics: []string{"m"}, Grain: Year, Range: TimeSpan{Fixed: rng(t, "2020-01-01", "2026-01-01")},
				Filters: []Filter{{Op: OpIn, Dimension: "d", Values: vals64}},
			},
		},
		{
			name: "escaped non-ASCII value",
			in:   `{"metrics":["m"],"grain":"day","range":{"start":"2026-01-01","end":"2026-01-02"},"filters":[{"op":"eq","dimension":"city","value":"Z\u00fcrich"}]}`,
			want: Question{
				Metrics: []string{"m"}, Grain: Day, Range: TimeSpan{Fixed: rng(t, "2026-01-01", "2026-01-02")},
				Filters: []Filter{{Op: OpEq, Dimension: "city", Values: []string{"Zürich"}}},
			},
		},
		{
			name: "relative range, include_current absent",
			in:   `{"metrics":["m"],"grain":"month","range":{"last":{"count":3,"unit":"month"}}}`,
			want: Question{Metrics: []string{"m"}, Grain: Month, Range: TimeSpan{Relative: &Relative{Count: 3, Unit: Month}}},
		},
		{
			name: "relative range, include_current true",
			in:   `{"metrics":["m"],"grain":"day","range":{"last":{"count":7,"unit":"day","include_current":true}}}`,
			want: Question{Metrics: []string{"m"}, Grain: Day, Range: TimeSpan{Relative: &Relative{Count: 7, Unit: Day, IncludeCurrent: true}}},
		},
		{
			name: "relative range, include_current false",
			in:   `{"metrics":["m"],"grain":"day","range":{"last":{"include_current":false,"unit":"week","count":1}}}`,
			want: Question{Metrics: []string{"m"}, Grain: Day, Range: TimeSpan{Relative: &Relative{Count: 1, Unit: Week}}},
		},
		{
			name: "top without direction defaults to desc",
			in:   `{"metrics":["m"],"grain":"month","range":{"start":"2026-01-01","end":"2026-02-01"},"top":{"n":1,"by":"period"}}`,
			want: Question{Metrics: []string{"m"}, Grain: Month, Range: TimeSpan{Fixed: rng(t, "2026-01-01", "2026-02-01")}, Top: &Top{N: 1, By: ByPeriod, Direction: "desc"}},
		},
		{
			name: "top ascending",
			in:   `{"metrics":["m"],"grain":"month","range":{"start":"2026-01-01","end":"2026-02-01"},"top":{"n":3,"by":"metric","direction":"asc"}}`,
			want: Question{Metrics: []string{"m"}, Grain: Month, Range: TimeSpan{Fixed: rng(t, "2026-01-01", "2026-02-01")}, Top: &Top{N: 3, By: ByMetric, Direction: "asc"}},
		},
		{
			// Counts above the contract are typed refusals of the compiler
			// (too_many_metrics, duplicate_metric_name, result_too_large, ...),
			// so the parser must let them through.
			name: "over-contract counts are left to the compiler",
			in: `{"metrics":["a","b","c","d","e","f","g","h","i","a"],"grain":"day","range":{"start":"2000-01-01","end":"2026-01-01"},
			"dimensions":["d1","d2","d3","d4","d5","d1"],"top":{"n":10001,"by":"metric"}}`,
			want: Question{
				Metrics:    []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "a"},
				Grain:      Day,
				Range:      TimeSpan{Fixed: rng(t, "2000-01-01", "2026-01-01")},
				Dimensions: []string{"d1", "d2", "d3", "d4", "d5", "d1"},
				Top:        &Top{N: 10001, By: ByMetric, Direction: "desc"},
			},
		},
		{
			name: "whitespace around the value",
			in:   " \n\t{\"metrics\":[\"m\"],\"grain\":\"day\",\"range\":{\"start\":\"2026-01-01\",\"end\":\"2026-01-02\"}}\r\n ",
			want: Question{Metrics: []string{"m"}, Grain: Day, Range: TimeSpan{Fixed: rng(t, "2026-01-01", "2026-01-02")}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseQuestion([]byte(tt.in))
			if err != nil {
				t.Fatalf("ParseQuestion: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ParseQuestion =\n%+v\nwant\n%+v", dump(got), dump(tt.want))
			}
			// The question re-marshals to its wire shape and parses back.
			wire, err := json.Marshal(got)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			again, err := ParseQuestion(wire)
			if err != nil {
				t.Fatalf("re-parse of %s: %v", wire, err)
			}
			if !reflect.DeepEqual(again, got) {
				t.Fatalf("round trip changed the question:\n%s", wire)
			}
		})
	}
}

// dump renders a question for failure messages.
func dump(q Question) string {
	b, _ := json.Marshal(q)
	return string(b)
}

func TestQuestionWireShape(t *testing.T) {
	q := Question{
		Metrics: []string{"net_sales"},
		Grain:   Month,
		Range:   TimeSpan{Fixed: rng(t, "2026-01-01", "2026-04-01")},
		Filters: []Filter{
			{Op: OpEq, Dimension: "area", Values: []string{"east"}},
			{Op: OpIn, Dimension: "channel", Values: []string{"web", "shop"}},
		},
	}
	got, err := json.Marshal(q)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"metrics":["net_sales"],"grain":"month","range":{"start":"2026-01-01","end":"2026-04-01"},` +
		`"filters":[{"op":"eq","dimension":"area","value":"east"},{"op":"in","dimension":"channel","values":["web","shop"]}]}`
	if string(got) != want {
		t.Fatalf("Marshal =\n%s\nwant\n%s", got, want)
	}
	rel := Question{Metrics: []string{"m"}, Grain: Week, Range: TimeSpan{Relative: &Relative{Count: 2, Unit: Week, IncludeCurrent: true}}, Top: &Top{N: 3, By: ByPeriod, Direction: "asc"}}
	got, _ = json.Marshal(rel)
	want = `{"metrics":["m"],"grain":"week","range":{"last":{"count":2,"unit":"week","include_current":true}},"top":{"n":3,"by":"period","direction":"asc"}}`
	if string(got) != want {
		t.Fatalf("Marshal =\n%s\nwant\n%s", got, want)
	}
}

func TestTopDescending(t *testing.T) {
	for _, tt := range []struct {
		dir  string
		want bool
	}{{"desc", true}, {"asc", false}, {"", true}} {
		if got := (Top{Direction: tt.dir}).Descending(); got != tt.want {
			t.Errorf("Top{Direction: %q}.Descending() = %v", tt.dir, got)
		}
	}
}

// TestResolveRelative resolves each unit against a fixed today, Wednesday
// 2026-03-18, with the expectations worked out by hand on a calendar.
func TestResolveRelative(t *testing.T) {
	today := mustDate(t, "2026-03-18")
	if today.Weekday().String() != "Wednesday" {
		t.Fatal("the fixture assumes a Wednesday")
	}
	tests := []struct {
		count      int
		unit       Grain
		current    bool
		start, end string
	}{
		// Days: the last 7 whole days end yesterday; with today, they end tomorrow.
		{7, Day, false, "2026-03-11", "2026-03-18"},
		{7, Day, true, "2026-03-12", "2026-03-19"},
		{1, Day, false, "2026-03-17", "2026-03-18"},
		{1, Day, true, "2026-03-18", "2026-03-19"},
		// Weeks: this week began Monday 2026-03-16.
		{2, Week, false, "2026-03-02", "2026-03-16"},
		{2, Week, true, "2026-03-09", "2026-03-23"},
		{1, Week, true, "2026-03-16", "2026-03-23"},
		// Months: this month began 2026-03-01.
		{3, Month, false, "2025-12-01", "2026-03-01"},
		{3, Month, true, "2026-01-01", "2026-04-01"},
		{12, Month, false, "2025-03-01", "2026-03-01"},
		// Quarters: this quarter began 2026-01-01.
		{2, Quarter, false, "2025-07-01", "2026-01-01"},
		{2, Quarter, true, "2025-10-01", "2026-04-01"},
		{1, Quarter, false, "2025-10-01", "2026-01-01"},
		// Years.
		{1, Year, false, "2025-01-01", "2026-01-01"},
		{1, Year, true, "2026-01-01", "2027-01-01"},
		{10, Year, false, "2016-01-01", "2026-01-01"},
	}
	for _, tt := range tests {
		name := fmt.Sprintf("last %d %s current=%v", tt.count, tt.unit, tt.current)
		t.Run(name, func(t *testing.T) {
			s := TimeSpan{Relative: &Relative{Count: tt.count, Unit: tt.unit, IncludeCurrent: tt.current}}
			got := s.Resolve(today)
			if got.Start.String() != tt.start || got.End.String() != tt.end {
				t.Fatalf("Resolve = [%s, %s), want [%s, %s)", got.Start, got.End, tt.start, tt.end)
			}
		})
	}

	// A fixed range ignores today.
	fixed := TimeSpan{Fixed: rng(t, "2020-01-01", "2020-02-01")}
	if got := fixed.Resolve(today); got != *fixed.Fixed {
		t.Fatalf("a fixed range resolved to %v", got)
	}
}

// TestResolveRelativeAtBoundaries resolves on the first day of a bucket
// (today is a bucket start), where an off-by-one would show.
func TestResolveRelativeAtBoundaries(t *testing.T) {
	tests := []struct {
		today      string
		count      int
		unit       Grain
		current    bool
		start, end string
	}{
		{"2026-01-01", 1, Year, false, "2025-01-01", "2026-01-01"},
		{"2026-01-01", 1, Month, false, "2025-12-01", "2026-01-01"},
		{"2026-01-01", 1, Quarter, true, "2026-01-01", "2026-04-01"},
		{"2026-03-16", 1, Week, false, "2026-03-09", "2026-03-16"}, // a Monday
		{"2026-03-22", 1, Week, false, "2026-03-09", "2026-03-16"}, // a Sunday
		{"2024-03-01", 1, Day, false, "2024-02-29", "2024-03-01"},
		{"2024-02-29", 1, Month, true, "2024-02-01", "2024-03-01"},
	}
	for _, tt := range tests {
		s := TimeSpan{Relative: &Relative{Count: tt.count, Unit: tt.unit, IncludeCurrent: tt.current}}
		got := s.Resolve(mustDate(t, tt.today))
		if got.Start.String() != tt.start || got.End.String() != tt.end {
			t.Errorf("today %s, last %d %s current=%v: [%s, %s), want [%s, %s)",
				tt.today, tt.count, tt.unit, tt.current, got.Start, got.End, tt.start, tt.end)
		}
	}
}

// TestResolveRelativeCoversCountBuckets is the property behind the hand
// cases: the resolved range holds exactly count whole buckets, ends at the
// current bucket's start (or the next one's with include_current) and so
// never reaches into the future beyond the current bucket.
func TestResolveRelativeCoversCountBuckets(t *testing.T) {
	from := mustDate(t, "2023-11-20")
	for today := from; today < from+800; today += 3 {
		for _, g := range Grains {
			for _, count := range []int{1, 2, 5, 13} {
				for _, cur := range []bool{false, true} {
					r := TimeSpan{Relative: &Relative{Count: count, Unit: g, IncludeCurrent: cur}}.Resolve(today)
					end := g.Truncate(today)
					if cur {
						end = g.Add(end, 1)
					}
					if r.End != end {
						t.Fatalf("today %s, %d %s current=%v: end %s, want %s", today, count, g, cur, r.End, end)
					}
					buckets := 0
					for d := r.Start; d < r.End; d = g.Add(d, 1) {
						if g.Truncate(d) != d {
							t.Fatalf("range start %s is not a %s start", r.Start, g)
						}
						buckets++
					}
					if buckets != count {
						t.Fatalf("today %s, %d %s current=%v: %d buckets in [%s, %s)", today, count, g, cur, buckets, r.Start, r.End)
					}
					if cur != r.Contains(today) {
						t.Fatalf("today %s, %d %s current=%v: Contains(today) = %v", today, count, g, cur, r.Contains(today))
					}
				}
			}
		}
	}
}

// TestDecodeQuestionFromYAMLForm decodes the Go-native form a catalogue
// adapter builds from YAML: Object, []any, string, bool, int and float64.
func TestDecodeQuestionFromYAMLForm(t *testing.T) {
	v := Object{
		{"metrics", []any{"net_sales"}},
		{"grain", "month"},
		{"range", Object{{"last", Object{{"count", 3}, {"unit", "month"}, {"include_current", true}}}}},
		{"filters", []any{Object{{"op", "in"}, {"dimension", "area"}, {"values", []any{"east", "west"}}}}},
		{"top", Object{{"n", float64(5)}, {"by", "metric"}}},
	}
	q, err := DecodeQuestion(v)
	if err != nil {
		t.Fatalf("DecodeQuestion: %v", err)
	}
	want := Question{
		Metrics: []string{"net_sales"},
		Grain:   Month,
		Range:   TimeSpan{Relative: &Relative{Count: 3, Unit: Month, IncludeCurrent: true}},
		Filters: []Filter{{Op: OpIn, Dimension: "area", Values: []string{"east", "west"}}},
		Top:     &Top{N: 5, By: ByMetric, Direction: "desc"},
	}
	if !reflect.DeepEqual(q, want) {
		t.Fatalf("got %s\nwant %s", dump(q), dump(want))
	}

	bad := []struct {
		name  string
		v     any
		field string
	}{
		{"fractional float", Object{{"metrics", []any{"m"}}, {"grain", "day"}, {"range", Object{{"last", Object{{"count", 2.5}, {"unit", "day"}}}}}}, "range.last.count"},
		{"int64 out of range", Object{{"metrics", []any{"m"}}, {"grain", "day"}, {"range", Object{{"last", Object{{"count", int64(1) << 40}, {"unit", "day"}}}}}}, "range.last.count"},
		{"a plain map is not an Object", map[string]any{"metrics": []any{"m"}}, ""},
		{"duplicate key in an Object", Object{{"metrics", []any{"m"}}, {"metrics", []any{"m"}}, {"grain", "day"}, {"range", Object{{"last", Object{{"count", 1}, {"unit", "day"}}}}}}, "metrics"},
	}
	for _, tt := range bad {
		_, err := DecodeQuestion(tt.v)
		fe, ok := err.(*FieldError)
		if !ok {
			t.Errorf("%s: error %v is not a *FieldError", tt.name, err)
			continue
		}
		if fe.Field != tt.field {
			t.Errorf("%s: field %q, want %q (%v)", tt.name, fe.Field, tt.field, err)
		}
	}
}
