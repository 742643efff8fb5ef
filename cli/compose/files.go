package compose

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"sutura.dev/cli/internal/config"
	"sutura.dev/domain"
)

// fileExtensions are the last segments of a table path that are the
// extension of a file the files source reads, not the name of a table.
var fileExtensions = []string{"csv", "parquet", "ndjson", "jsonl", "json", "gz", "zst"}

// checkFiles checks the files sources of cfg before any table is looked
// for: each data_dir exists and is a directory (naming the key and the
// resolved path), and no model on a files source names a file where its
// table belongs (table: sales.csv reads as schema sales, table csv).
func checkFiles(cfg *config.Config, b *domain.Bundle) error {
	if cfg.Demo() {
		return nil
	}
	var errs []error
	for _, alias := range sortedAliases(cfg) {
		src := cfg.Sources[alias]
		if src.Kind != config.KindFiles {
			continue
		}
		key := "sources." + alias + ".data_dir"
		switch info, err := os.Stat(src.DataDir); {
		case errors.Is(err, fs.ErrNotExist):
			errs = append(errs, fmt.Errorf("%s: %s does not exist", key, src.DataDir))
		case err != nil:
			errs = append(errs, fmt.Errorf("%s: %s cannot be read: %w", key, src.DataDir, errors.Unwrap(err)))
		case !info.IsDir():
			errs = append(errs, fmt.Errorf("%s: %s is not a directory", key, src.DataDir))
		}
		for _, m := range b.Definitions().Models {
			if m.Source != alias {
				continue
			}
			parts := m.TableParts()
			n := len(parts)
			for n > 1 && slices.Contains(fileExtensions, strings.ToLower(parts[n-1])) {
				n--
			}
			if n == len(parts) {
				continue
			}
			t := parts[n-1]
			errs = append(errs, fmt.Errorf("model %s: table: %s is a file name, but table: names a table: the files source reads table %s from %s/%s.csv (or .parquet, .ndjson, .jsonl, each optionally .gz or .zst) or from the directory %s/%s/; write table: %s",
				m.Name, m.Table, t, src.DataDir, t, src.DataDir, t, t))
		}
	}
	return errors.Join(errs...)
}
