package semantic_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"sutura.dev/domain"
	"sutura.dev/semantic"
)

// FuzzCompile feeds the compiler every question the domain parser accepts.
// Its input is a question's JSON and a value; every "@V@" in the JSON is
// replaced by the value (JSON-escaped), and the value also becomes every
// allowlist entry and required-filter value of a generated catalogue, so
// the fuzzer chooses the literals as well as the shape of the question.
// The catalogues are the test catalogue, which mirrors the demo
// (catalog_test.go), and, when the value is a valid dimension value, the
// generated one, in one data system and split across three; each is asked
// by the local operator and by a principal who sees only open metrics.
//
// Its property, for every question domain.ParseQuestion accepts:
//   - Compile never panics, and returns exactly one of a plan and a
//     refusal; a refusal has a known code and a detail that holds no
//     caller literal (no filter value, no date of the range) beyond the
//     catalogue's own allowlisted values it may list as what is allowed;
//   - a single-leg plan, and each leg of a federated plan (the split
//     catalogue's questions that cross data systems), renders in every
//     dialect, every placeholder appears in the SQL, and there are as many
//     placeholders as parameters;
//   - every literal of the plan (filter values, the range's dates,
//     required-filter values) is a bound parameter, and the SQL text holds
//     none of them: rendered again with every literal replaced, the
//     statement text is byte for byte the same, and no date of the range
//     appears in it.
//
// Seeds live in testdata/fuzz/FuzzCompile; a finding is committed there
// with its fix.
func FuzzCompile(f *testing.F) {
	demo := demoBundle(f)
	principals := []domain.Principal{domain.LocalOperator, {Subject: "agent"}}
	f.Fuzz(func(t *testing.T, data []byte, value string) {
		lit, err := json.Marshal(value)
		if err != nil {
			return
		}
		data = []byte(strings.ReplaceAll(string(data), "@V@", string(lit[1:len(lit)-1])))
		q, err := domain.ParseQuestion(data)
		if err != nil {
			return
		}
		bundles := []*domain.Bundle{demo}
		bundles = append(bundles, generatedBundles(value)...)
		for _, b := range bundles {
			for _, p := range principals {
				plan, why := semantic.Compile(b, p, q, today)
				switch {
				case (plan == nil) == (why == nil):
					t.Fatalf("Compile returned plan %v and refusal %v", plan != nil, why)
				case why != nil:
					checkRefusal(t, b, q, why)
				default:
					checkPlan(t, plan)
				}
			}
		}
	})
}

// generatedBundles are the test catalogue with v as every allowlist entry
// and every required-filter value, in one data system and split across
// three (so that questions crossing them are planned in legs), or none
// when v is not a valid dimension value.
func generatedBundles(v string) []*domain.Bundle {
	if domain.CheckValue(v) != nil {
		return nil
	}
	with := func(list []string) []string {
		return append([]string{v}, slices.DeleteFunc(slices.Clone(list), func(s string) bool { return s == v })...)
	}
	vals := values{
		areas: with(areas), channels: with(channels), categories: with(categories), segments: with(segments),
		cancelled: v, completed: v, online: v,
	}
	var out []*domain.Bundle
	for _, defs := range []domain.Definitions{definitions(vals), splitDefinitions(vals)} {
		if b, err := domain.NewBundle("fuzz", defs, domain.Knowledge{}); err == nil {
			out = append(out, b)
		}
	}
	return out
}

// checkRefusal asserts a refusal's code is known and its detail quotes no
// literal of the question, the allowlisted values of b it may list aside.
func checkRefusal(t *testing.T, b *domain.Bundle, q domain.Question, why *domain.Reason) {
	t.Helper()
	if !why.Code().Known() || why.Status() < 400 || why.Detail() == "" {
		t.Fatalf("refusal with code %q, status %d, detail %q", why.Code(), why.Status(), why.Detail())
	}
	detail := withoutListedValues(b, why.Detail())
	for _, lit := range callerLiterals(q) {
		if strings.Contains(detail, lit) {
			t.Fatalf("the %s refusal quotes the caller's literal %q: %s", why.Code(), lit, why.Detail())
		}
	}
}

// withoutListedValues is detail with every value b lists on an allowlist
// blanked out, longest first: a refusal may say what is allowed (catalogue
// text), and a caller's value may be one of those, allowed on another
// filter, or a part of one ("N" of "North") without being quoted.
func withoutListedValues(b *domain.Bundle, detail string) string {
	var listed []string
	for _, m := range b.Definitions().Metrics {
		for _, d := range m.Dimensions {
			listed = append(listed, d.Values...)
		}
	}
	slices.SortFunc(listed, func(x, y string) int { return len(y) - len(x) })
	for _, v := range listed {
		detail = strings.ReplaceAll(detail, v, "\x00")
	}
	return detail
}

// callerLiterals are the question's literals that no detail could hold by
// chance: its range dates, and filter values with a character that is
// neither in the lowercase words and punctuation of a detail nor in a
// name (an upper-case or non-ASCII letter, most punctuation; a detail
// writes ". , ( ) ; :" itself) and that are not part of a name the
// question uses (a detail may name those).
func callerLiterals(q domain.Question) []string {
	var out []string
	if r := q.Range.Fixed; r != nil {
		out = append(out, r.Start.String(), r.End.String())
	}
	named := strings.Join(slices.Concat(q.Metrics, q.Dimensions), " ")
	for _, f := range q.Filters {
		named += " " + f.Dimension
	}
	for _, f := range q.Filters {
		for _, v := range f.Values {
			if strings.ContainsFunc(v, func(r rune) bool { return !strings.ContainsRune("abcdefghijklmnopqrstuvwxyz0123456789_ .,();:", r) }) &&
				!strings.Contains(named, v) {
				out = append(out, v)
			}
		}
	}
	return out
}

// checkPlan renders the plan in every dialect and asserts that its
// literals are bound parameters and never statement text.
func checkPlan(t *testing.T, plan *domain.Plan) {
	t.Helper()
	if len(plan.Legs) == 0 {
		t.Fatal("a plan without legs")
	}
	if plan.Federated() {
		// A federated plan is sent as its legs, each rendered alone.
		for i := range plan.Legs {
			checkPlan(t, plan.LegPlan(i, 1000))
		}
		return
	}
	other := otherLiterals(plan)
	literals := expectedValues(plan)
	for _, d := range semantic.Dialects() {
		st, err := semantic.Render(plan, d)
		if err != nil {
			t.Fatalf("%s: a compiled plan does not render: %v", d, err)
		}
		bound := make([]string, 0, len(st.Params))
		for _, p := range st.Params {
			bound = append(bound, p.Value)
			if !strings.Contains(st.SQL, p.Name) {
				t.Fatalf("%s: placeholder %s is not in the SQL\n%s", d, p.Name, st.SQL)
			}
		}
		if n := strings.Count(st.SQL, placeholderMark(d)); n != len(st.Params) {
			t.Fatalf("%s: %d placeholders for %d parameters\n%s", d, n, len(st.Params), st.SQL)
		}
		for _, v := range literals {
			if !slices.Contains(bound, v) {
				t.Fatalf("%s: the literal %q is not a bound parameter\n%s", d, v, st.SQL)
			}
		}
		for _, date := range []domain.Date{plan.Range.Start, plan.Range.End} {
			if strings.Contains(st.SQL, date.String()) {
				t.Fatalf("%s: the range date %s is in the SQL text\n%s", d, date, st.SQL)
			}
		}
		again, err := semantic.Render(other, d)
		if err != nil {
			t.Fatalf("%s: the plan with other literals does not render: %v", d, err)
		}
		if again.SQL != st.SQL {
			t.Fatalf("%s: the statement text depends on a literal:\n%s\n-- with other literals --\n%s", d, st.SQL, again.SQL)
		}
	}
}

// otherLiterals is a copy of plan with every literal replaced: each
// distinct filter value and required-filter value by a marker of its own
// (equal values by the same marker: the renderer may write a required
// filter that every metric shares once, which is a fact about the
// catalogue's values, not about their text), the range moved by a year.
// The plan itself is not changed.
func otherLiterals(plan *domain.Plan) *domain.Plan {
	out := *plan
	out.Range = domain.Range{Start: plan.Range.Start.AddDays(371), End: plan.Range.End.AddDays(371)}
	out.Legs = slices.Clone(plan.Legs)
	markers := map[string]string{}
	marker := func(v string) string {
		if _, ok := markers[v]; !ok {
			markers[v] = fmt.Sprintf("zz-other-%d", len(markers)+1)
		}
		return markers[v]
	}
	for i := range out.Legs {
		leg := &out.Legs[i]
		leg.Filters = slices.Clone(leg.Filters)
		for j := range leg.Filters {
			vals := make([]string, len(leg.Filters[j].Values))
			for k, v := range leg.Filters[j].Values {
				vals[k] = marker(v)
			}
			leg.Filters[j].Values = vals
		}
		leg.Metrics = slices.Clone(leg.Metrics)
		for j := range leg.Metrics {
			rfs := slices.Clone(leg.Metrics[j].RequiredFilters)
			for k := range rfs {
				if rfs[k].Value != "" {
					rfs[k].Value = marker(rfs[k].Value)
				}
			}
			leg.Metrics[j].RequiredFilters = rfs
		}
	}
	return &out
}
