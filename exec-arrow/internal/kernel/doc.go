// Package kernel holds the engine's vectorised kernels: a bound Query
// (the base table's slots, the range and its buckets, the joins, the
// filters, the metrics and their terms, the group keys) is scanned batch
// by batch from a Producer by Scan, on Query.Parallel workers, into
// Partial aggregates that merge in worker order; ScanAll scans a union of
// questions over one table in one pass (union.go). count_distinct over many
// streamed values keeps them in partitioned distinct.Sets, which spill to
// disk when the Reservation cannot grow (distinct.go). Inside a batch: the
// selection vector narrowed by range, bucket and predicates, the metrics'
// required filters as bit masks, joins through the join index of the
// joined column, group keys packed into a uint64 and looked up in a dense
// table or a hash map, the term kernels (sum, count, count_distinct, avg,
// min, max, count_if), and the direct kernel for counts and integer sums
// with no dimension and no join (direct.go).
//
// Contract: the same rows give the same bits whatever the producer
// (cached segments, streamed row groups or blocks, a federated leg's rows)
// and whatever the scheduling: group g goes to worker g mod Parallel and
// partials merge in worker order, unless every term is OrderFree (then any
// worker may take any group). Working memory is taken from a Reservation
// (refused with resources_exhausted when the Budget cannot hold it); the
// context is checked every batch. Of the engine's packages it imports
// column, distinct, gate, groups, i128, join and format (for Guard),
// nothing above them.
package kernel
