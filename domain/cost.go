package domain

import "time"

// Cost is the realized cost of one question: what executing it actually
// took, measured by the data systems that ran it and by the surface around
// them, never estimated from the plan.
//
// A data system that can measure its work reports RowsScanned and
// BytesRead (app.CostReporter); the surface fills in the rest. When a data
// system ends in a refusal or a failure, what it spent until it stopped is
// still a cost.
type Cost struct {
	// RowsScanned is the number of table rows the data systems read after
	// partition, file and chunk pruning: rows whose values were looked at,
	// summed over every table of every leg.
	RowsScanned int64 `json:"rows_scanned"`
	// BytesRead is the number of bytes the data systems read to answer:
	// from disk, from the network, or from their own cache.
	BytesRead int64 `json:"bytes_read"`
	// RowsReturned is the number of rows of the answer; zero for a refusal.
	RowsReturned int `json:"rows_returned"`
	// Elapsed is the wall time the data systems spent executing, from the
	// start of the first leg to the end of the last; admission wait is not
	// included.
	Elapsed time.Duration `json:"elapsed_ns"`
	// Sources lists the configured source aliases read, in leg order;
	// empty when no data system was asked.
	Sources []string `json:"sources"`
	// Measured reports whether RowsScanned and BytesRead are measurements:
	// true when every data system read reported its work, or when none was
	// read; false when one could not measure (its figures are then zero,
	// not estimates).
	Measured bool `json:"measured"`
	// EstimatedBytes is the bytes the data systems estimated, before
	// anything ran, that the question would scan (docs/contract.md §15),
	// summed over the legs whose estimate is known; EstimateKnown says
	// whether every leg's was.
	EstimatedBytes int64 `json:"estimated_bytes"`
	EstimateKnown  bool  `json:"estimate_known"`
}
