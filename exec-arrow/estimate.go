package engine

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/files"
	"sutura.dev/exec-arrow/internal/format"
)

// Estimate says, before anything runs, how many bytes executing plan
// would read from the source's files (docs/contract.md §15): for a plain
// Parquet file of the base table, the compressed size of the wanted
// columns in the row groups whose time-column statistics meet the range
// (the pruning execution does), so a narrow range over a sorted file
// estimates little; for a joined table's Parquet file, its wanted columns
// in every row group; for any other file (CSV, NDJSON, a compressed
// Parquet file), its size on disk. Footers are read once per file
// identity (path, size, modification time) and kept, so an estimate costs
// a stat of each file after the first. known is false for a plan the
// engine does not execute (several legs).
func (e *Engine) Estimate(ctx context.Context, plan *domain.Plan) (bytes int64, known bool, err error) {
	if plan == nil || len(plan.Legs) != 1 {
		return 0, false, nil
	}
	leg := &plan.Legs[0]
	tables, alias, err := legTables(leg)
	if err != nil {
		return 0, false, err
	}
	wants, _, err := e.wants(leg, tables, alias)
	if err != nil {
		return 0, false, err
	}
	for i, t := range tables {
		if err := ctx.Err(); err != nil {
			return 0, false, err
		}
		if len(t.Path) == 0 {
			return 0, false, fmt.Errorf("model %s has no table path", t.Model)
		}
		tf, err := files.Locate(e.cfg.Files, t.Path[len(t.Path)-1])
		if err != nil {
			return 0, false, fmt.Errorf("%w: model %s: %w", domain.ErrUnavailable, t.Model, err)
		}
		timeColumn := ""
		if i == 0 {
			timeColumn = leg.TimeColumn
		}
		for _, p := range tf.Parts {
			if p.Format != files.FormatParquet || p.Codec != files.CodecNone {
				bytes += p.Size
				continue
			}
			md, err := e.footers.get(e, p)
			if err != nil {
				bytes += p.Size
				continue
			}
			bytes += format.ParquetBytes(md, wants[i], timeColumn, plan.Range)
		}
	}
	return bytes, true, nil
}

// footers keeps the Parquet footers estimates read, by file identity; a
// file whose size or modification time changed is read again.
type footers struct {
	mu sync.Mutex
	by map[string]*metadata.FileMetaData
}

// maxFooters bounds how many footers are kept; past it the oldest are
// dropped wholesale, which only costs reading them again.
const maxFooters = 4096

func (f *footers) get(e *Engine, p files.Part) (*metadata.FileMetaData, error) {
	key := p.Path + "\x00" + strconv.FormatInt(p.Size, 10) + "\x00" + strconv.FormatInt(p.Mtime, 10)
	f.mu.Lock()
	md := f.by[key]
	f.mu.Unlock()
	if md != nil {
		return md, nil
	}
	l := format.NewLoader(context.Background(), e.cfg.Files, nil, false, nil)
	src, closer, err := l.ParquetSource(p)
	if err != nil {
		return nil, err
	}
	defer closer()
	pf, err := file.NewParquetReader(src)
	if err != nil {
		return nil, fmt.Errorf("file %s: not a Parquet file: %w", p.Path, err)
	}
	md = pf.MetaData()
	_ = pf.Close()
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.by == nil || len(f.by) >= maxFooters {
		f.by = map[string]*metadata.FileMetaData{}
	}
	f.by[key] = md
	return md, nil
}
