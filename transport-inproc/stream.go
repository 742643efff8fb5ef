package inproc

import (
	"context"
	"encoding/json"
	"iter"

	"sutura.dev/domain"
)

// Bounds of one streamed record when Config leaves them zero.
const (
	DefaultChunkRows  = 500
	DefaultChunkBytes = 256 << 10
)

// RecordKind says what a streamed record carries.
type RecordKind string

// The kinds of streamed records. Rows records come first; exactly one
// terminal record (answer, refusal or content) ends every stream that
// does not end in an error.
const (
	// RecordRows carries a chunk of an answer's rows, with the columns.
	RecordRows RecordKind = "rows"
	// RecordAnswer ends an answer: its columns, provenance, the number of
	// rows delivered and the cost.
	RecordAnswer RecordKind = "answer"
	// RecordRefusal is a refusal, alone: its reason and the cost.
	RecordRefusal RecordKind = "refusal"
	// RecordContent ends the call of a tool whose result is not rows
	// (describe_catalog): the structured content, exactly as Invoke
	// returns it.
	RecordContent RecordKind = "content"
)

// Record is one record of a streamed call.
type Record struct {
	Kind RecordKind `json:"kind"`
	// Seq numbers the records of one call from 0.
	Seq int `json:"seq"`
	// Columns are the answer's columns, on rows and answer records.
	Columns []domain.Column `json:"columns,omitempty"`
	// Rows holds at most Config.ChunkRows rows and Config.ChunkBytes of
	// rendered cells (at least one row), on rows records.
	Rows [][]domain.Cell `json:"rows,omitempty"`
	// Provenance and RowCount (the rows of every rows record together) end
	// an answer.
	Provenance *domain.Provenance `json:"provenance,omitempty"`
	RowCount   int                `json:"row_count,omitempty"`
	// Explanation ends an answer too (docs/contract.md §16).
	Explanation *domain.Explanation `json:"explanation,omitempty"`
	// Reason is the refusal's reason.
	Reason *domain.Reason `json:"reason,omitempty"`
	// Content is the structured content of a content record.
	Content json.RawMessage `json:"content,omitempty"`
	// Cost is the realized cost of the call, on the terminal record.
	Cost *domain.Cost `json:"cost,omitempty"`
}

// Terminal reports whether r ends its stream.
func (r Record) Terminal() bool { return r.Kind != RecordRows }

// InvokeStream calls tool with args, as Invoke does, and delivers the
// result as records: an answer's rows in bounded chunks, then one terminal
// record with its provenance; a refusal as one terminal record; any other
// tool's content (describe_catalog, run_sql's rows, which carry no
// provenance) as one terminal record. Errors are Invoke's, delivered as
// the stream's only element.
//
// The call runs when iteration starts. Rows are delivered once the answer
// is complete, bounded and audited — a row never leaves before the row cap
// and byte bound were checked, so a stream is never a truncated answer —
// and only the delivery is incremental: a kernel renders or forwards each
// chunk without holding the whole body. Stopping the iteration, or ctx
// ending between records (its error is then the last element), stops the
// delivery.
func (c *Connection) InvokeStream(ctx context.Context, tool string, args json.RawMessage) iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		res, err := c.call(ctx, tool, args)
		if err != nil {
			yield(Record{}, err)
			return
		}
		cost := res.Cost
		switch {
		case res.Refusal != nil:
			yield(Record{Kind: RecordRefusal, Reason: res.Refusal, Cost: &cost}, nil)
		case res.Answer != nil:
			c.streamAnswer(ctx, res.Answer, &cost, yield)
		default:
			b, err := content(res)
			if err != nil {
				yield(Record{}, err)
				return
			}
			yield(Record{Kind: RecordContent, Content: b, Cost: &cost}, nil)
		}
	}
}

// streamAnswer yields a's rows in chunks, then its terminal record.
func (c *Connection) streamAnswer(ctx context.Context, a *domain.Answer, cost *domain.Cost, yield func(Record, error) bool) {
	seq := 0
	for start := 0; start < len(a.Rows); {
		if err := ctx.Err(); err != nil {
			yield(Record{}, err)
			return
		}
		end, size := start, 0
		for end < len(a.Rows) && end-start < c.cfg.ChunkRows {
			n := rowBytes(a.Rows[end])
			if end > start && size+n > c.cfg.ChunkBytes {
				break
			}
			size += n
			end++
		}
		if !yield(Record{Kind: RecordRows, Seq: seq, Columns: a.Columns, Rows: a.Rows[start:end:end]}, nil) {
			return
		}
		seq++
		start = end
	}
	if err := ctx.Err(); err != nil {
		yield(Record{}, err)
		return
	}
	columns := a.Columns
	if columns == nil {
		columns = []domain.Column{}
	}
	prov := a.Provenance
	yield(Record{Kind: RecordAnswer, Seq: seq, Columns: columns, Provenance: &prov, RowCount: len(a.Rows), Explanation: a.Explanation, Cost: cost}, nil)
}

// rowBytes is the rendered size of a row, the measure of the 8 MiB bound.
func rowBytes(row []domain.Cell) int {
	n := 0
	for _, cell := range row {
		n += len(cell.Render())
	}
	return n
}
