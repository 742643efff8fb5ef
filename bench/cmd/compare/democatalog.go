package main

import (
	"context"
	"fmt"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	mdcatalog "sutura.dev/adapters/catalog-markdown"
	"sutura.dev/app"
	"sutura.dev/bench/canon"
	"sutura.dev/bench/duck"
	"sutura.dev/examples/demo"
	"sutura.dev/semantic"
)

// writeDemoCatalog writes the demo catalogue into d.catalogDir() with
// every anchor's value replaced by the value DuckDB computes over the
// generated data (in format): the committed anchors hold for the demo's
// 12 000 rows only, and `sutura serve` re-runs every anchor before it
// listens, so a start on generated data needs anchors that data
// reproduces. Each anchor is asked as sutura asks it at start
// (app.AnchorPlan) and run as the DuckDB dialect's statement, with its
// values bound, over DuckDB views of the files: sutura's engine then has
// to reproduce DuckDB's figure at every start, as it would a database's.
func writeDemoCatalog(ctx context.Context, d dataSet, format string) error {
	docs := demo.Catalog()
	b, err := mdcatalog.Load(docs, demo.Version)
	if err != nil {
		return fmt.Errorf("load the demo catalogue: %w", err)
	}
	db, err := duck.Open(ctx, duck.Options{Dir: d.dir(format), Format: format})
	if err != nil {
		return fmt.Errorf("open the demo data for its anchors: %w", err)
	}
	defer db.Close()
	values := map[string]string{}
	for _, name := range app.AnchoredMetrics(b) {
		m, _ := b.Metric(name)
		r := m.Anchor.Range
		plan, reason := app.AnchorPlan(b, m)
		if reason != nil {
			return fmt.Errorf("anchor of %s: refused (%s): %s", name, reason.Code(), reason.Detail())
		}
		st, err := semantic.Render(plan, semantic.DuckDB)
		if err != nil {
			return fmt.Errorf("anchor of %s: %w", name, err)
		}
		args, err := st.PositionalArgs()
		if err != nil {
			return fmt.Errorf("anchor of %s: %w", name, err)
		}
		_, rows, err := duck.Query(ctx, db, st.SQL, args...)
		if err != nil {
			return fmt.Errorf("anchor of %s in DuckDB: %w", name, err)
		}
		if len(rows) != 1 {
			return fmt.Errorf("anchor of %s: DuckDB returned %d rows, not one: generate rows over its range %s–%s", name, len(rows), r.Start, r.End)
		}
		v, err := canon.Render(rows[0][len(rows[0])-1])
		switch {
		case err != nil:
			return fmt.Errorf("anchor of %s: DuckDB's value: %w", name, err)
		case v == nil:
			return fmt.Errorf("anchor of %s: DuckDB's value is null over %s–%s", name, r.Start, r.End)
		}
		values[name] = *v
	}
	out := d.catalogDir()
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	replaced := 0
	err = fs.WalkDir(docs, ".", func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := filepath.Join(out, filepath.FromSlash(path))
		if e.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		body, err := fs.ReadFile(docs, path)
		if err != nil {
			return err
		}
		if text, ok := withAnchorValue(string(body), values); ok {
			body, replaced = []byte(text), replaced+1
		}
		return os.WriteFile(target, body, 0o644)
	})
	if err != nil {
		return err
	}
	if replaced != len(values) {
		return fmt.Errorf("the demo catalogue: %d anchors recomputed, %d replaced in its files", len(values), replaced)
	}
	log.Printf("demo catalogue with %d anchors computed by DuckDB written to %s", replaced, out)
	return nil
}

// withAnchorValue returns a metric document whose front matter names a
// metric of values with the anchor value replaced by that metric's, and
// whether it did.
func withAnchorValue(doc string, values map[string]string) (string, bool) {
	lines := strings.Split(doc, "\n")
	var metric string
	for _, l := range lines {
		if v, ok := strings.CutPrefix(l, "name: "); ok {
			metric = strings.Trim(strings.TrimSpace(v), `"'`)
			break
		}
	}
	value, ok := values[metric]
	if !ok {
		return doc, false
	}
	for i, l := range lines {
		if l != "anchor:" {
			continue
		}
		for j := i + 1; j < len(lines) && strings.HasPrefix(lines[j], "  "); j++ {
			if strings.HasPrefix(lines[j], "  value:") {
				lines[j] = "  value: " + strconv.Quote(value)
				return strings.Join(lines, "\n"), true
			}
		}
	}
	return doc, false
}
