package domain

import (
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
	Outcome          string       `json:"outcome"` // answer, refusal, failure or estimate (a dry run)
	Code             string       `json:"code,omitempty"`
	Rows             int          `json:"rows"`
	DefinitionDigest string       `json:"definition_digest,omitempty"`
	ExecutedAs       []ExecutedAs `json:"executed_as,omitempty"`
	DurationMS       float64      `json:"duration_ms"`
	Statement        string       `json:"statement,omitempty"` // run_sql only
	// EstimatedBytes is the summed estimate before execution of the legs
	// whose estimate is known, and BytesScanned the bytes debited to the
	// caller's budget (realized, or the estimate where a data system
	// reports none); both absent when nothing was estimated
	// (docs/contract.md §15).
	EstimatedBytes *int64 `json:"estimated_bytes,omitempty"`
	BytesScanned   *int64 `json:"bytes_scanned,omitempty"`
	// BudgetAudience is the audience whose budget override the caller is
	// held to; empty for the default budget or none. It is a configured
	// audience id, never a caller value.
	BudgetAudience string `json:"budget_audience,omitempty"`
}
