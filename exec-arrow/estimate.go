package engine

import (
	"context"
	"fmt"

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
			md, err := e.footer(p)
			if err != nil {
				bytes += p.Size
				continue
			}
			bytes += format.ParquetBytes(md, wants[i], timeColumn, plan.Range)
		}
	}
	return bytes, true, nil
}

// footer reads the footer of Parquet part p through the engine's footers.
func (e *Engine) footer(p files.Part) (*metadata.FileMetaData, error) {
	l := format.NewLoader(context.Background(), e.cfg.Files, nil, false, nil)
	src, closer, err := l.ParquetSource(p)
	if err != nil {
		return nil, err
	}
	defer closer()
	md, err := e.footers.Read(src, p.Path)
	if err != nil {
		return nil, fmt.Errorf("file %s: not a Parquet file: %w", p.Path, err)
	}
	return md, nil
}
