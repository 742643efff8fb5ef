package domain

import (
	"fmt"
	"time"
)

// Code is the stable identifier of a refusal reason (docs/contract.md §4.3).
// Codes are part of the contract: they never change spelling.
type Code string

// Every refusal code. The list is exhaustive: Codes and Status cover each.
const (
	MetricUnknown                Code = "metric_unknown"
	TooManyMetrics               Code = "too_many_metrics"
	DuplicateMetricName          Code = "duplicate_metric_name"
	MetricsSpanDifferentModels   Code = "metrics_span_different_models"
	GrainNotSupported            Code = "grain_not_supported"
	TimeRangeTooLong             Code = "time_range_too_long"
	TooManyDimensions            Code = "too_many_dimensions"
	TooManyFilters               Code = "too_many_filters"
	DuplicateDimension           Code = "duplicate_dimension"
	DimensionNotPermitted        Code = "dimension_not_permitted"
	DimensionNotFilterable       Code = "dimension_not_filterable"
	DimensionValueNotAllowed     Code = "dimension_value_not_allowed"
	ResultTooLarge               Code = "result_too_large"
	ResourcesExhausted           Code = "resources_exhausted"
	DeadlineExceeded             Code = "deadline_exceeded"
	BudgetExhausted              Code = "budget_exhausted"
	ScanCeilingExceeded          Code = "scan_ceiling_exceeded"
	PlanNeedsTooManyLookupLegs   Code = "plan_needs_too_many_lookup_legs"
	PlanSpansTooManySources      Code = "plan_spans_too_many_sources"
	FederationNotExecutable      Code = "federation_not_executable"
	FederationLinkAmbiguous      Code = "federation_link_ambiguous"
	MeasureDoesNotFederate       Code = "measure_does_not_federate"
	MultiMetricTopNotExecutable  Code = "multi_metric_top_not_executable"
	PlanTablesShareAnIdentifier  Code = "plan_tables_share_an_identifier"
	FederatedAnswerNotWellFormed Code = "federated_answer_not_well_formed"
	CredentialUnavailable        Code = "credential_unavailable"
	SourceRefused                Code = "source_refused"
	SourceUnavailable            Code = "source_unavailable"
)

// codeStatus is the one exhaustive table of refusal codes and their HTTP
// statuses. A refusal is never 2xx.
var codeStatus = map[Code]int{
	MetricUnknown:                404,
	TooManyMetrics:               422,
	DuplicateMetricName:          422,
	MetricsSpanDifferentModels:   422,
	GrainNotSupported:            422,
	TimeRangeTooLong:             422,
	TooManyDimensions:            422,
	TooManyFilters:               422,
	DuplicateDimension:           422,
	DimensionNotPermitted:        403,
	DimensionNotFilterable:       403,
	DimensionValueNotAllowed:     403,
	ResultTooLarge:               413,
	ResourcesExhausted:           422,
	DeadlineExceeded:             422,
	BudgetExhausted:              429,
	ScanCeilingExceeded:          413,
	PlanNeedsTooManyLookupLegs:   409,
	PlanSpansTooManySources:      409,
	FederationNotExecutable:      409,
	FederationLinkAmbiguous:      409,
	MeasureDoesNotFederate:       409,
	MultiMetricTopNotExecutable:  409,
	PlanTablesShareAnIdentifier:  409,
	FederatedAnswerNotWellFormed: 409,
	CredentialUnavailable:        403,
	SourceRefused:                403,
	SourceUnavailable:            503,
}

// codeOrder lists the codes in the order of docs/contract.md §4.3.
var codeOrder = []Code{
	MetricUnknown, TooManyMetrics, DuplicateMetricName, MetricsSpanDifferentModels,
	GrainNotSupported, TimeRangeTooLong, TooManyDimensions, TooManyFilters,
	DuplicateDimension, DimensionNotPermitted, DimensionNotFilterable,
	DimensionValueNotAllowed, ResultTooLarge, ResourcesExhausted, DeadlineExceeded,
	BudgetExhausted, ScanCeilingExceeded, PlanNeedsTooManyLookupLegs, PlanSpansTooManySources, FederationNotExecutable,
	FederationLinkAmbiguous, MeasureDoesNotFederate, MultiMetricTopNotExecutable,
	PlanTablesShareAnIdentifier, FederatedAnswerNotWellFormed, CredentialUnavailable,
	SourceRefused, SourceUnavailable,
}

// Codes returns every refusal code in the order of the contract.
func Codes() []Code { return append([]Code(nil), codeOrder...) }

// Status returns the HTTP status of the code, or 0 for an unknown code.
func (c Code) Status() int { return codeStatus[c] }

// Known reports whether c is a refusal code of the contract.
func (c Code) Known() bool { _, ok := codeStatus[c]; return ok }

// Reason is why a question was refused: a stable code and a sentence for a
// person. Detail names metrics and dimensions but never a value the caller
// sent. Reason is a result, not a Go error.
type Reason struct {
	code   Code
	detail string
	// retryAfter is when asking again may succeed (budget_exhausted,
	// docs/contract.md §15); zero when the reason says nothing of it.
	retryAfter time.Duration
}

// Refuse returns the reason with code c and a detail formatted from format
// and args. Callers pass only catalogue names and numbers as args, never
// caller values. Refuse is the one constructor every transport's refusal
// goes through.
func Refuse(c Code, format string, args ...any) Reason {
	return Reason{code: c, detail: fmt.Sprintf(format, args...)}
}

// Code returns the stable refusal code.
func (r Reason) Code() Code { return r.code }

// Status returns the HTTP status the code maps to.
func (r Reason) Status() int { return r.code.Status() }

// Detail returns the sentence for a person.
func (r Reason) Detail() string { return r.detail }

// RetryAfter returns how long the caller should wait before asking again
// (budget_exhausted: until enough of the window has passed); zero when the
// reason says nothing of it.
func (r Reason) RetryAfter() time.Duration { return r.retryAfter }

// WithRetryAfter returns r saying to ask again after d, rounded up to a
// whole second on the wire (retry_after_seconds, the HTTP Retry-After).
func (r Reason) WithRetryAfter(d time.Duration) Reason {
	r.retryAfter = d
	return r
}

// RetryAfterSeconds returns RetryAfter rounded up to whole seconds, at
// least 1 when it is set; 0 when it is not.
func (r Reason) RetryAfterSeconds() int64 {
	if r.retryAfter <= 0 {
		return 0
	}
	return int64((r.retryAfter + time.Second - 1) / time.Second)
}

// MarshalJSON writes {code, detail}, and retry_after_seconds when the
// reason carries it; HTTP adds status itself.
func (r Reason) MarshalJSON() ([]byte, error) {
	return marshalReason(r, false)
}
