package format

import (
	"context"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
)

// RowGroup decodes the wanted columns of one row group of a streamed
// Parquet file batch by batch, each column when the caller asks for it:
// flat columns of PLAIN and dictionary pages straight from their pages
// (PageChunk), the others through one pqarrow record reader (whose batch
// sets the row count), columns read for validity alone from their
// levels. A column of a batch the caller does not ask for is skipped
// (PageChunk) or dropped (the record's), so a producer can decode the
// time and filter columns of a batch first and the rest only when some
// row of it may count.
type RowGroup struct {
	path     string
	rg, base int // the row group, and the file row of the current batch
	protos   []*column.Column
	inferred []bool
	own      []*PageChunk // per slot: read from its pages
	valids   []*ValidReader
	recCol   []int // per slot: its column in the record
	rr       pqarrow.RecordReader
	rec      arrow.RecordBatch
	bufs     *[]DictBuffers
	done     []bool // per slot: decoded or skipped in the current batch
	n        int
}

// RowGroupSpec says what a RowGroup reads: per slot of protos, its leaf
// column; the slots wanted for their values (in leaf order) and those
// inferred from text; the file row of the row group's first row; and
// the worker's buffers per slot. A slot Need leaves out (Full holds
// none such) is neither opened nor read. With Src, the column chunks decoded from
// their pages are read from it directly (see NewPageChunkAt), each
// page's uncompressed size at most Limit bytes.
type RowGroupSpec struct {
	Path     string
	RG       int
	First    int
	Leaves   []int
	Protos   []*column.Column
	Full     []int
	Need     []bool // per slot, whether it is read at all (nil: every slot)
	Inferred []bool
	Bufs     *[]DictBuffers
	Src      io.ReaderAt
	Limit    int64
}

// OpenRowGroup opens the pages and readers of a row group.
func OpenRowGroup(ctx context.Context, fr *pqarrow.FileReader, sp RowGroupSpec) (*RowGroup, error) {
	g := &RowGroup{path: sp.Path, rg: sp.RG, base: sp.First, protos: sp.Protos, inferred: sp.Inferred, bufs: sp.Bufs,
		own: make([]*PageChunk, len(sp.Protos)), valids: make([]*ValidReader, len(sp.Protos)),
		recCol: make([]int, len(sp.Protos)), done: make([]bool, len(sp.Protos))}
	pf := fr.ParquetReader()
	md := pf.MetaData()
	rgr := pf.RowGroup(sp.RG)
	var rest []int
	for _, s := range sp.Full {
		descr := md.Schema.Column(sp.Leaves[s])
		if sp.Inferred[s] || !PageEligible(rgr.MetaData(), sp.Leaves[s], descr, sp.Protos[s]) {
			g.recCol[s] = len(rest)
			rest = append(rest, sp.Leaves[s])
			continue
		}
		var d *PageChunk
		var err error
		if sp.Src != nil {
			cs := ChunkSource{Src: sp.Src, File: pf, Limit: sp.Limit, IO: g.pageIO(s)}
			d, err = NewPageChunkAt(cs, sp.RG, sp.Leaves[s], descr, sp.Protos[s])
		} else {
			d, err = NewPageChunk(rgr, sp.Leaves[s], descr, sp.Protos[s])
		}
		if err != nil {
			g.Close()
			return nil, fmt.Errorf("file %s, row group %d, column %s: %w", sp.Path, sp.RG, sp.Protos[s].Name, err)
		}
		g.own[s] = d
	}
	if len(rest) > 0 {
		rr, err := fr.GetRecordReader(ctx, rest, []int{sp.RG})
		if err != nil {
			g.Close()
			return nil, fmt.Errorf("file %s, row group %d: %w", sp.Path, sp.RG, err)
		}
		g.rr = rr
	}
	for s, c := range sp.Protos {
		if c.ValidOnly && (sp.Need == nil || sp.Need[s]) {
			v, err := NewValidReader(rgr, sp.Leaves[s], md.Schema.Column(sp.Leaves[s]))
			if err != nil {
				g.Close()
				return nil, fmt.Errorf("file %s, column %s: %w", sp.Path, c.Name, err)
			}
			g.valids[s] = v
		}
	}
	return g, nil
}

// Start begins the next batch of at most n rows (the rows left of the
// row group) and returns its row count: the record reader's batch, when
// some column is read through it.
func (g *RowGroup) Start(ctx context.Context, n int) (int, error) {
	g.base += g.n
	clear(g.done)
	g.rec = nil
	if g.rr != nil {
		ok, err := NextRecord(g.rr)
		if err != nil {
			if ctx.Err() != nil {
				return 0, ctx.Err()
			}
			return 0, fmt.Errorf("file %s, row group %d: %w", g.path, g.rg, err)
		}
		if !ok {
			return 0, fmt.Errorf("file %s, row group %d: fewer rows than its footer says", g.path, g.rg)
		}
		g.rec = g.rr.RecordBatch()
		n = int(g.rec.NumRows())
	}
	g.n = n
	return n, nil
}

// Column decodes slot s of the current batch: keep, when not nil, is a
// bitmap of the rows that may count, and the values of the others may
// be left out (null).
func (g *RowGroup) Column(s int, keep []byte) (*column.Column, error) {
	g.done[s] = true
	n := g.n
	if v := g.valids[s]; v != nil {
		bits, err := v.Next(n)
		if err != nil {
			return nil, fmt.Errorf("file %s, column %s: %w", g.path, g.protos[s].Name, err)
		}
		p := g.protos[s]
		return &column.Column{Name: p.Name, Type: p.Type, N: n, Valid: bits, ValidOnly: true, ID: column.ColumnIDs.Add(1)}, nil
	}
	d := g.own[s]
	if d == nil {
		return BatchColumn(g.protos[s], g.rec.Column(g.recCol[s]), g.path, g.base, g.inferred[s])
	}
	buf := g.buffers(s, n)
	buf.Keep = keep
	c, err := d.Next(n, buf)
	if ae, ok := err.(*ArrowErr); ok {
		return nil, LoadError(g.path, g.protos[s].Name, g.base+ae.Row+1, "row", ae.Err)
	} else if err != nil {
		return nil, fmt.Errorf("file %s, row group %d, column %s: %w", g.path, g.rg, g.protos[s].Name, err)
	}
	return c, nil
}

// Text reports whether slot s is text read from its pages, whose PLAIN
// values a keep bitmap may leave out.
func (g *RowGroup) Text(s int) bool { return g.own[s] != nil && g.own[s].Typ == domain.TypeText }

// Finish skips the columns of the current batch not asked for.
func (g *RowGroup) Finish() error {
	for s, done := range g.done {
		if done {
			continue
		}
		if v := g.valids[s]; v != nil {
			if _, err := v.Next(g.n); err != nil {
				return fmt.Errorf("file %s: %w", g.path, err)
			}
		}
		if d := g.own[s]; d != nil {
			if err := d.Skip(g.n, g.buffers(s, g.n)); err != nil {
				return fmt.Errorf("file %s, row group %d, column %s: %w", g.path, g.rg, g.protos[s].Name, err)
			}
		}
	}
	return nil
}

func (g *RowGroup) buffers(s, n int) DictBuffers {
	bufs := *g.bufs
	for len(bufs) < len(g.protos) {
		bufs = append(bufs, DictBuffers{})
	}
	bufs[s] = bufs[s].Grow(n, g.protos[s].Type)
	*g.bufs = bufs
	return bufs[s]
}

// pageIO is the worker's page memory of slot s.
func (g *RowGroup) pageIO(s int) *PageIO {
	g.buffers(s, 0)
	bufs := *g.bufs
	if bufs[s].IO == nil {
		bufs[s].IO = &PageIO{}
	}
	return bufs[s].IO
}

// Close releases the row group's readers.
func (g *RowGroup) Close() {
	for _, d := range g.own {
		if d != nil {
			d.Close()
		}
	}
	if g.rr != nil {
		g.rr.Release()
	}
}
