package domain

import "encoding/json"

// Estimate is what a question would scan, estimated before anything runs
// (docs/contract.md §15): the outcome of a dry run.
type Estimate struct {
	// Bytes is the sum of the legs whose estimate is known.
	Bytes int64
	// PerLeg holds one estimate per leg of the plan, in leg order.
	PerLeg []LegEstimate
	// WouldRefuse is the refusal the question would meet at execution
	// (scan_ceiling_exceeded, budget_exhausted), or nil.
	WouldRefuse *Reason
}

// LegEstimate is the estimate of one leg: the bytes its data system
// expects to scan, when Known. A data system that cannot estimate says
// so, and the scan ceiling does not apply to that leg.
type LegEstimate struct {
	Source string
	Bytes  int64
	Known  bool
}

// MarshalJSON writes {"source", "bytes"}, with bytes "unknown" when the
// data system could not estimate.
func (l LegEstimate) MarshalJSON() ([]byte, error) {
	var bytes any = "unknown"
	if l.Known {
		bytes = l.Bytes
	}
	return json.Marshal(struct {
		Source string `json:"source"`
		Bytes  any    `json:"bytes"`
	}{l.Source, bytes})
}

// Known reports whether every leg's estimate is known.
func (e Estimate) Known() bool {
	for _, l := range e.PerLeg {
		if !l.Known {
			return false
		}
	}
	return true
}

// marshalOutcome writes the dry run's wire body: {"outcome":"estimate",
// "estimate":{"bytes","per_leg"},"would_refuse":<code or null>}; the
// reason's detail and retry_after_seconds are under "reason" when it
// would be refused.
func (e *Estimate) marshalOutcome() ([]byte, error) {
	legs := e.PerLeg
	if legs == nil {
		legs = []LegEstimate{}
	}
	body := struct {
		Outcome  string `json:"outcome"`
		Estimate struct {
			Bytes  int64         `json:"bytes"`
			PerLeg []LegEstimate `json:"per_leg"`
		} `json:"estimate"`
		WouldRefuse *Code   `json:"would_refuse"`
		Reason      *Reason `json:"reason,omitempty"`
	}{Outcome: "estimate"}
	body.Estimate.Bytes = e.Bytes
	body.Estimate.PerLeg = legs
	if e.WouldRefuse != nil {
		c := e.WouldRefuse.Code()
		body.WouldRefuse = &c
		body.Reason = e.WouldRefuse
	}
	return json.Marshal(body)
}
