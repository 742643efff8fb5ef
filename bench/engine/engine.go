// Package engine is the benchmark harness's hook: every system measured by
// bench/cmd/compare implements Engine. The DuckDB reference engines live in
// sutura.dev/bench/duck; sutura's own engine plugs in here too (see the
// HOOK comment in bench/cmd/compare/engines.go).
package engine

import (
	"context"
	"time"

	"sutura.dev/bench/question"
)

// Case is one benchmark question.
type Case struct {
	// Name identifies the case in reports.
	Name string
	// Question is the wire question (docs/contract.md §3.1). sutura's engine
	// answers this.
	Question question.Question
	// ReferenceSQL is hand-written DuckDB SQL answering Question over the
	// tables orders, customers, regions and products, with the columns
	// and row order of a sutura answer. Only the DuckDB engines read it.
	ReferenceSQL string
}

// Result is an answer: column labels and rows of canonical cell text
// (docs/contract.md §4.2; nil is null), in answer order.
type Result struct {
	// Columns are the answer's column labels.
	Columns []string
	// Rows are the answer's rows.
	Rows [][]*string
}

// Engine is a system under benchmark. An engine is set up (data opened or
// loaded) before its first Run; Run is then timed. An Engine that also
// implements io.Closer is closed after its last Run.
type Engine interface {
	// Name labels the engine in reports.
	Name() string
	// Run answers one case.
	Run(ctx context.Context, c Case) (Result, error)
}

// Warmer is an Engine whose warm state takes more than answering once
// (sutura fills its cache in the background); the harness calls Warm
// after the first answer and before it times warm answers.
type Warmer interface {
	Warm(ctx context.Context, c Case) error
}

// Footprinter is an Engine that can say how many bytes of data it holds
// (after Warm: the columns the question reads).
type Footprinter interface {
	Footprint() int64
}

// Phaser is an Engine whose answer is made of phases worth timing apart
// (sutura's federated engine: its legs, then its combine); Phases
// returns the durations of the last Run's phases, by name.
type Phaser interface {
	Phases() map[string]time.Duration
}
