package engine

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/parquet/file"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/files"
	"sutura.dev/exec-arrow/internal/format"
)

// validateModel checks one model's table (see Validate). A Parquet part
// is checked from its footer where the footer vouches for a column
// (format.FooterVouches: its stored type cannot hold a value the declared
// type refuses), so a Parquet table of such columns is validated without
// reading its data; only the other columns of a Parquet part, and every
// CSV or NDJSON part, are read. A model with an untyped column is read
// whole, as its type is inferred across all its parts.
func (e *Engine) validateModel(ctx context.Context, m *domain.Model) error {
	tf, err := files.Locate(e.cfg.Files, m.BareTable())
	if err != nil {
		return fmt.Errorf("model %s: %w", m.Name, err)
	}
	wants := make([]format.Want, len(m.Columns))
	untyped := false
	for j, c := range m.Columns {
		wants[j] = format.Want{Name: c.Name, Type: c.Type, Spec: column.SpecOf(c)}
		untyped = untyped || c.Type == domain.TypeUnset
	}
	read := func(l *format.Loader, p files.Part) error {
		e.cache.reads.Add(1)
		if err := l.ReadPart(p); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("model %s: %w", m.Name, err)
		}
		return nil
	}
	var whole *format.Loader // every column, across the parts read whole
	for _, p := range tf.Parts {
		if p.Format == files.FormatParquet && !untyped {
			rest, err := e.footerRest(ctx, p, wants)
			if err != nil {
				return fmt.Errorf("model %s: %w", m.Name, err)
			}
			if len(rest) == 0 {
				continue
			}
			if err := read(format.NewLoader(ctx, e.cfg.Files, rest, true, nil), p); err != nil {
				return err
			}
			continue
		}
		if whole == nil {
			whole = format.NewLoader(ctx, e.cfg.Files, wants, true, nil)
		}
		if err := read(whole, p); err != nil {
			return err
		}
	}
	return nil
}

// footerRest reads the footer of Parquet part p: its row counts must be
// sound and every wanted column present; it returns the wants whose
// values must still be read to be checked (the footer does not vouch for
// them).
func (e *Engine) footerRest(ctx context.Context, p files.Part, wants []format.Want) ([]format.Want, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l := format.NewLoader(ctx, e.cfg.Files, nil, false, nil)
	src, closer, err := l.ParquetSource(p)
	if err != nil {
		return nil, err
	}
	defer closer()
	pf, err := file.NewParquetReader(src)
	if err != nil {
		return nil, fmt.Errorf("file %s: not a Parquet file: %w", p.Path, err)
	}
	defer pf.Close()
	md := pf.MetaData()
	if err := format.CheckRows(p.Path, md); err != nil {
		return nil, err
	}
	var rest []format.Want
	for _, w := range wants {
		idx := md.Schema.ColumnIndexByName(w.Name)
		if idx < 0 {
			return nil, fmt.Errorf("file %s: column %s is missing", p.Path, w.Name)
		}
		if !format.FooterVouches(md.Schema.Column(idx), w.Type) {
			rest = append(rest, w)
		}
	}
	return rest, nil
}
