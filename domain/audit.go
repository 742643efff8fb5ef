package domain

import (
	"errors"
	"time"
)

// AuditRecord is what is written for every answer and refusal (and every
// run_sql call) before the outcome is returned (docs/contract.md §8). It holds
// filter dimensions but never filter values, and never a rejected value.
type AuditRecord struct {
	Time             time.Time    `json:"time"`
	CorrelationID    string       `json:"correlation_id,omitempty"`
	Principal        []string     `json:"principal"`
	Capability       Capability   `json:"capability"`
	Metrics          []string     `json:"metrics,omitempty"`
	Grain            string       `json:"grain,omitempty"`
	Range            *Range       `json:"range,omitempty"`
	Dimensions       []string     `json:"dimensions,omitempty"`
	FilterDimensions []string     `json:"filter_dimensions,omitempty"`
	Outcome          string       `json:"outcome"` // answer, refusal or failure
	Code             string       `json:"code,omitempty"`
	Rows             int          `json:"rows"`
	DefinitionDigest string       `json:"definition_digest,omitempty"`
	ExecutedAs       []ExecutedAs `json:"executed_as,omitempty"`
	DurationMS       float64      `json:"duration_ms"`
	Statement        string       `json:"statement,omitempty"` // run_sql only
}

// RefusalError is how a data system reports that execution ended in a
// refusal (row cap, byte bound, working set, deadline, a source that
// refused on authorization grounds). The surface turns it into a refusal
// outcome; it is never shown as a failure.
type RefusalError struct {
	Reason Reason
}

func (e *RefusalError) Error() string {
	return "refused (" + string(e.Reason.Code()) + "): " + e.Reason.Detail()
}

// ErrZeroDenominator is returned (wrapped, naming the metric) by a data
// system when a ratio whose zero_denominator is "fails" meets a zero
// denominator: the metric's definition says the answer does not exist.
var ErrZeroDenominator = errors.New("a ratio's denominator is zero and its metric declares zero_denominator: fails")

// ErrDefect is returned (wrapped, with the detail for the operator's log)
// by a data system whose own code failed where it cannot fail by design:
// a panic recovered in a worker goroutine, which no caller's recover could
// catch. It is a defect of sutura, not of the question or the data: the
// surface reports it as an internal failure, never as an unavailable data
// system.
var ErrDefect = errors.New("a defect in sutura")
