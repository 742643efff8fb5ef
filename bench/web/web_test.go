package web

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"sutura.dev/bench/duck"
	"sutura.dev/bench/sutura"
)

// TestEveryCaseAgreesWithDuckDB generates a small web data set as
// Parquet and CSV, writes its catalogue with the anchor DuckDB computes,
// and asks every case of sutura's engine (through the catalogue) and of
// DuckDB (through the reference SQL): the answers must be equal, cell for
// cell, so a case whose question and reference SQL disagree fails here
// before it fails a benchmark run.
func TestEveryCaseAgreesWithDuckDB(t *testing.T) {
	ctx := context.Background()
	work := t.TempDir()
	for _, format := range []string{"parquet", "csv"} {
		t.Run(format, func(t *testing.T) {
			dir := filepath.Join(work, format)
			require.NoError(t, Generate(ctx, dir, format, 20_000))
			anchor, err := Anchor(ctx, dir, format)
			require.NoError(t, err)
			cat := filepath.Join(work, "catalog-"+format)
			require.NoError(t, WriteCatalog(cat, anchor))
			s, err := sutura.NewCatalogEngine(ctx, "sutura", dir, sutura.Catalog{Docs: os.DirFS(cat), Version: Version, Source: SourceAlias}, 0)
			require.NoError(t, err)
			d, err := duck.NewEngine(ctx, "duckdb", duck.Options{Dir: dir, Format: format, Tables: Tables})
			require.NoError(t, err)
			defer d.Close()
			for _, c := range Cases {
				want, err := d.Run(ctx, c)
				require.NoError(t, err, c.Name)
				got, err := s.Run(ctx, c)
				require.NoError(t, err, c.Name)
				require.NotEmpty(t, want.Rows, c.Name)
				require.Equal(t, want, got, c.Name)
			}
		})
	}
}
