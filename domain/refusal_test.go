package domain

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// contractCodes is docs/contract.md §4.3, copied from the spec by hand, in its
// order. It is the independent record the implementation is checked
// against.
var contractCodes = []struct {
	code   string
	status int
}{
	{"metric_unknown", 404},
	{"too_many_metrics", 422},
	{"duplicate_metric_name", 422},
	{"metrics_span_different_models", 422},
	{"grain_not_supported", 422},
	{"time_range_too_long", 422},
	{"too_many_dimensions", 422},
	{"too_many_filters", 422},
	{"duplicate_dimension", 422},
	{"dimension_not_permitted", 403},
	{"dimension_not_filterable", 403},
	{"dimension_value_not_allowed", 403},
	{"result_too_large", 413},
	{"resources_exhausted", 422},
	{"deadline_exceeded", 422},
	{"budget_exhausted", 429},
	{"scan_ceiling_exceeded", 413},
	{"plan_needs_too_many_lookup_legs", 409},
	{"plan_spans_too_many_sources", 409},
	{"federation_not_executable", 409},
	{"federation_link_ambiguous", 409},
	{"measure_does_not_federate", 409},
	{"multi_metric_top_not_executable", 409},
	{"plan_tables_share_an_identifier", 409},
	{"federated_answer_not_well_formed", 409},
	{"credential_unavailable", 403},
	{"source_refused", 403},
	{"source_unavailable", 503},
}

func TestRefusalCodesMatchTheContract(t *testing.T) {
	if len(contractCodes) != 28 {
		t.Fatalf("the spec table has 28 codes; this copy has %d", len(contractCodes))
	}
	got := Codes()
	if len(got) != len(contractCodes) {
		t.Fatalf("Codes() has %d codes, the contract %d", len(got), len(contractCodes))
	}
	for i, c := range contractCodes {
		if string(got[i]) != c.code {
			t.Errorf("Codes()[%d] = %s, want %s (order of §4.3)", i, got[i], c.code)
		}
		code := Code(c.code)
		if !code.Known() {
			t.Errorf("%s is not Known", c.code)
		}
		if code.Status() != c.status {
			t.Errorf("%s.Status() = %d, want %d", c.code, code.Status(), c.status)
		}
	}
}

func TestRefusalConstantsSpellTheirCodes(t *testing.T) {
	constants := []Code{
		MetricUnknown, TooManyMetrics, DuplicateMetricName, MetricsSpanDifferentModels,
		GrainNotSupported, TimeRangeTooLong, TooManyDimensions, TooManyFilters,
		DuplicateDimension, DimensionNotPermitted, DimensionNotFilterable,
		DimensionValueNotAllowed, ResultTooLarge, ResourcesExhausted, DeadlineExceeded,
		BudgetExhausted, ScanCeilingExceeded, PlanNeedsTooManyLookupLegs, PlanSpansTooManySources, FederationNotExecutable,
		FederationLinkAmbiguous, MeasureDoesNotFederate, MultiMetricTopNotExecutable,
		PlanTablesShareAnIdentifier, FederatedAnswerNotWellFormed, CredentialUnavailable,
		SourceRefused, SourceUnavailable,
	}
	for i, c := range constants {
		if string(c) != contractCodes[i].code {
			t.Errorf("constant %d spells %q, want %q", i, c, contractCodes[i].code)
		}
	}
	seen := map[Code]bool{}
	for _, c := range Codes() {
		if seen[c] {
			t.Errorf("%s listed twice", c)
		}
		seen[c] = true
	}
}

func TestNoRefusalIs2xx(t *testing.T) {
	for _, c := range Codes() {
		s := c.Status()
		if s < 400 || s > 599 {
			t.Errorf("%s has status %d; a refusal is a 4xx or 5xx, never 2xx", c, s)
		}
	}
}

func TestUnknownCode(t *testing.T) {
	for _, c := range []Code{"", "not_a_question", "Metric_Unknown", "internal"} {
		if c.Known() || c.Status() != 0 {
			t.Errorf("%q: Known=%v Status=%d, want false, 0", c, c.Known(), c.Status())
		}
	}
}

func TestCodesReturnsACopy(t *testing.T) {
	a := Codes()
	a[0] = "changed"
	if Codes()[0] != MetricUnknown {
		t.Fatal("Codes() exposes its backing array")
	}
}

func TestRefuse(t *testing.T) {
	r := Refuse(DimensionNotPermitted, "metric %s does not declare dimension %s", "net_sales", "area")
	if r.Code() != DimensionNotPermitted || r.Status() != 403 {
		t.Fatalf("Code=%s Status=%d", r.Code(), r.Status())
	}
	if r.Detail() != "metric net_sales does not declare dimension area" {
		t.Fatalf("Detail = %q", r.Detail())
	}
	plain := Refuse(TooManyMetrics, "at most 8 metrics")
	if plain.Detail() != "at most 8 metrics" {
		t.Fatalf("Detail = %q", plain.Detail())
	}
}

func TestReasonJSON(t *testing.T) {
	r := Refuse(BudgetExhausted, "the spend ceiling of %d for this window is reached", 100)

	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var plain map[string]any
	if err := json.Unmarshal(b, &plain); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"code": "budget_exhausted", "detail": "the spend ceiling of 100 for this window is reached"}
	if !reflect.DeepEqual(plain, want) {
		t.Fatalf("Reason JSON = %s", b)
	}
	if !strings.HasPrefix(string(b), `{"code":`) {
		t.Errorf("code is not first: %s", b)
	}

	b, err = json.Marshal(r.WithStatus())
	if err != nil {
		t.Fatal(err)
	}
	var withStatus map[string]any
	if err := json.Unmarshal(b, &withStatus); err != nil {
		t.Fatal(err)
	}
	want = map[string]any{"code": "budget_exhausted", "status": float64(429), "detail": "the spend ceiling of 100 for this window is reached"}
	if !reflect.DeepEqual(withStatus, want) {
		t.Fatalf("WithStatus JSON = %s", b)
	}
	if string(b) != `{"code":"budget_exhausted","status":429,"detail":"the spend ceiling of 100 for this window is reached"}` {
		t.Errorf("WithStatus JSON order = %s, want code, status, detail", b)
	}

	// Every code renders in both shapes with its own status.
	for _, c := range contractCodes {
		b, _ := json.Marshal(Refuse(Code(c.code), "x").WithStatus())
		var m struct {
			Code   string `json:"code"`
			Status int    `json:"status"`
		}
		if err := json.Unmarshal(b, &m); err != nil || m.Code != c.code || m.Status != c.status {
			t.Errorf("%s: %s", c.code, b)
		}
	}
}

func TestReasonDetailEscapesInJSON(t *testing.T) {
	r := Refuse(MetricUnknown, "no metric %s", `a"b<c>`)
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back struct{ Detail string }
	if err := json.Unmarshal(b, &back); err != nil || back.Detail != `no metric a"b<c>` {
		t.Fatalf("detail did not survive JSON: %s", b)
	}
}

func TestRefusalError(t *testing.T) {
	err := error(&RefusalError{Reason: Refuse(ResultTooLarge, "the answer holds more than %d rows", MaxRowCap)})
	if got, want := err.Error(), "refused (result_too_large): the answer holds more than 10000 rows"; got != want {
		t.Fatalf("Error() = %q, want %q", got, want)
	}
	var re *RefusalError
	if !errors.As(fmt.Errorf("leg 1: %w", err), &re) || re.Reason.Code() != ResultTooLarge || re.Reason.Status() != 413 {
		t.Fatal("a wrapped RefusalError does not come back with its reason")
	}
}
