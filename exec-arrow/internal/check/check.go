package check

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/apache/arrow-go/v18/parquet/metadata"

	"sutura.dev/domain"
	"sutura.dev/exec-arrow/internal/column"
	"sutura.dev/exec-arrow/internal/files"
	"sutura.dev/exec-arrow/internal/footer"
	"sutura.dev/exec-arrow/internal/format"
)

// SampleRows is how many records of each CSV or NDJSON part start-up
// parses before serving (rounded up to the loader's batch of 65,536): the
// header and the first rows, enough to catch a wrong delimiter, a missing
// column or a mistyped declaration, in a fraction of a second for any
// file size. The rest of the part is read by Whole.
const SampleRows = 1 << 16

// errSampled stops a sample's read once it has SampleRows records.
var errSampled = errors.New("sampled")

// Config is what the checks read: the source's files and, when set, a
// function told each time a part is opened to read rows (the engine counts
// them for its tests).
type Config struct {
	Files  fs.FS
	OnRead func()
	// Footers keeps the Parquet footers read, for the questions that
	// follow (nil keeps none).
	Footers *footer.Cache
}

// Table checks one model's table: its files exist, its declared columns
// exist, and every value it reads parses as its declared type. A Parquet
// part answers from its footer for the columns it vouches for
// (format.FooterVouches); its other columns are read. A CSV or NDJSON part
// of a model whose columns all declare a type is sampled (SampleRows) and
// returned in deferred; a model with an untyped column is read whole, as
// its type is inferred across all its parts.
//
// days are the first and last day of each date and timestamp column over
// the text parts Table read whole; known is set when that is every text
// part (nothing deferred, no untyped column).
func Table(ctx context.Context, cfg Config, m *domain.Model) (deferred []files.Part, days map[string]Days, known bool, err error) {
	tf, err := files.Locate(cfg.Files, m.BareTable())
	if err != nil {
		return nil, nil, false, fmt.Errorf("model %s: %w", m.Name, err)
	}
	wants, untyped := wantsOf(m)
	days = map[string]Days{}
	var whole *format.Loader // every column, across the parts read whole
	for _, p := range tf.Parts {
		switch {
		case p.Format == files.FormatParquet && !untyped:
			rest, err := footerRest(ctx, cfg, p, wants)
			if err != nil {
				return nil, nil, false, fmt.Errorf("model %s: %w", m.Name, err)
			}
			if len(rest) > 0 {
				if err := read(ctx, cfg, m, format.NewLoader(ctx, cfg.Files, rest, true, nil), p); err != nil {
					return nil, nil, false, err
				}
			}
		case p.Format != files.FormatParquet && !untyped:
			l := format.NewLoader(ctx, cfg.Files, wants, true, nil)
			l.Meter = func(int64) error {
				if l.Rows >= SampleRows {
					return errSampled
				}
				return nil
			}
			partDays := trackDays(l, wants)
			err := read(ctx, cfg, m, l, p)
			switch {
			case errors.Is(err, errSampled):
				deferred = append(deferred, p)
			case err != nil:
				return nil, nil, false, err
			default:
				merge(days, partDays())
			}
		default:
			if whole == nil {
				whole = format.NewLoader(ctx, cfg.Files, wants, true, nil)
			}
			if err := read(ctx, cfg, m, whole, p); err != nil {
				return nil, nil, false, err
			}
		}
	}
	return deferred, days, !untyped && len(deferred) == 0, nil
}

// Whole reads the parts Table deferred, every declared column of every
// record, and returns the first problem, named as Table names it, or the
// first and last day of each date and timestamp column over those parts.
func Whole(ctx context.Context, cfg Config, m *domain.Model, parts []files.Part) (map[string]Days, error) {
	wants, _ := wantsOf(m)
	days := map[string]Days{}
	for _, p := range parts {
		l := format.NewLoader(ctx, cfg.Files, wants, true, nil)
		partDays := trackDays(l, wants)
		if err := read(ctx, cfg, m, l, p); err != nil {
			return nil, err
		}
		merge(days, partDays())
	}
	return days, nil
}

// merge adds the days of one part to those of a table.
func merge(into, part map[string]Days) {
	for name, d := range part {
		if have, ok := into[name]; ok {
			d = d.union(have)
		}
		into[name] = d
	}
}

func wantsOf(m *domain.Model) (wants []format.Want, untyped bool) {
	wants = make([]format.Want, len(m.Columns))
	for j, c := range m.Columns {
		wants[j] = format.Want{Name: c.Name, Type: c.Type, Spec: column.SpecOf(c)}
		untyped = untyped || c.Type == domain.TypeUnset
	}
	return wants, untyped
}

func read(ctx context.Context, cfg Config, m *domain.Model, l *format.Loader, p files.Part) error {
	if cfg.OnRead != nil {
		cfg.OnRead()
	}
	if err := l.ReadPart(p); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("model %s: %w", m.Name, err)
	}
	return nil
}

// footerRest reads the footer of Parquet part p: its row counts must be
// sound and every wanted column present; it returns the wants whose
// values must still be read to be checked (the footer does not vouch for
// them).
func footerRest(ctx context.Context, cfg Config, p files.Part, wants []format.Want) ([]format.Want, error) {
	md, closer, err := Footer(ctx, cfg.Files, p, cfg.Footers)
	if err != nil {
		return nil, err
	}
	defer closer()
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

// Footer opens Parquet part p and reads its footer through fc (nil: decoded
// every time), whose row counts must be sound; closer releases the file.
func Footer(ctx context.Context, fsys fs.FS, p files.Part, fc *footer.Cache) (md *metadata.FileMetaData, closer func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	l := format.NewLoader(ctx, fsys, nil, false, nil)
	src, closer, err := l.ParquetSource(p)
	if err != nil {
		return nil, nil, err
	}
	md, err = fc.Read(src, p.Path)
	if err != nil {
		closer()
		return nil, nil, fmt.Errorf("file %s: not a Parquet file: %w", p.Path, err)
	}
	if err := format.CheckRows(p.Path, md); err != nil {
		closer()
		return nil, nil, err
	}
	return md, closer, nil
}
