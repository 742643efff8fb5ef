package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	mdcatalog "sutura.dev/adapters/catalog-markdown"
	"sutura.dev/adapters/import-cube"
	"sutura.dev/adapters/import-dbt"
	"sutura.dev/adapters/import-osi"
	"sutura.dev/adapters/importread"
	"sutura.dev/domain"
)

// The bounds of reading an import's input: no file over importFileMax, no
// more than importTotalMax read in all and importFilesMax files listed, so
// that a large or hostile input is refused before it can take the memory
// of the machine. They are documented in docs/importing.md (variables only
// so that tests can lower them).
var (
	importFileMax  int64 = 4 << 20
	importTotalMax int64 = 64 << 20
	importFilesMax       = 20000
)

// importMemoryLimit is the soft memory limit while an import runs: a YAML
// parse holds a tree many times its text's size for a moment, and the
// collector keeps that garbage down rather than letting the heap double.
const importMemoryLimit = 384 << 20

// errImportInput is wrapped by every reason the input of an import could
// not be read.
var errImportInput = errors.New("the input cannot be read")

// importFile is one file of an import's input, as every importer takes it.
type importFile = importread.File

// importer reads one format's files into what the shared writer takes.
type importer struct {
	format string
	// readJSON says whether .json files of a directory are read (a file
	// named on the command line is always read).
	readJSON bool
	// skip lists directory names the format's tools generate, whose files
	// are not definitions.
	skip []string
	read func(files []importFile) (*importread.Result, error)
}

// importers is the table of formats `sutura import` reads.
func importers() map[string]importer {
	ossie := importer{format: "osi", read: osi.Read}
	return map[string]importer{
		"dbt":   {format: "dbt", skip: []string{"target", "dbt_packages", "logs"}, read: dbt.Read},
		"cube":  {format: "cube", read: cube.Read},
		"osi":   ossie,
		"ossie": ossie,
	}
}

func importFlags(fs *flag.FlagSet) {
	fs.String("source", mdcatalog.DefaultImportSource, "the source alias every imported model reads from")
	fs.String("audience", mdcatalog.DefaultImportAudience, "the one audience every imported metric is restricted to until reviewed")
}

// runImport converts another semantic layer's definitions into catalogue
// documents in <out>, with IMPORT-REPORT.md, and prints one summary line
// per kind. It fails (exit 1) when the input cannot be read or is
// malformed, when <out> already holds files, or when no metric could be
// imported; then it writes the report alone.
func runImport(inv *invocation) error {
	kind, in, out := inv.args[0], inv.args[1], inv.args[2]
	imp, ok := importers()[kind]
	if !ok {
		return usagef("the format must be dbt, cube, osi or ossie")
	}
	opts := mdcatalog.ImportOptions{Source: inv.flags.Lookup("source").Value.String(),
		Audience: inv.flags.Lookup("audience").Value.String(), Input: filepath.Base(filepath.Clean(in))}
	if err := domain.CheckIdent(opts.Source); err != nil {
		return usagef("--source %s", err.Error())
	}
	if err := domain.CheckIdent(opts.Audience); err != nil {
		return usagef("--audience %s", err.Error())
	}
	if entries, err := os.ReadDir(out); err == nil && len(entries) > 0 {
		return fmt.Errorf("%s: %w; name a new or empty directory", out, mdcatalog.ErrOutputNotEmpty)
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(importMemoryLimit))
	files, err := readImportInput(in, imp)
	if err != nil {
		return err
	}
	read, err := imp.read(files)
	if err != nil {
		return fmt.Errorf("%s is not a well-formed %s input:\n%w", in, imp.format, err)
	}
	res, err := mdcatalog.AssembleImport(imported(imp.format, read), opts)
	if err != nil {
		return err
	}
	written := res.Files
	if res.Metrics == 0 {
		// Documents without a metric are no catalogue anyone can use:
		// only the report, which says why each metric was refused.
		written = written[len(written)-1:]
	}
	if err := mdcatalog.WriteFiles(out, written); err != nil {
		return err
	}
	if res.Bundle != nil && res.Metrics > 0 {
		// The output must load as it is, with the loader every catalogue
		// goes through; anything else is a bug worth stopping for.
		if _, err := mdcatalog.LoadDir(out, "import"); err != nil {
			return fmt.Errorf("the written catalogue does not load (a bug in sutura import): %w", err)
		}
	}
	w := inv.io.out
	for _, c := range mdcatalog.ImportCounts(res.Entries) {
		fmt.Fprintln(w, c.String())
	}
	report := filepath.Join(out, mdcatalog.ImportReportName)
	fmt.Fprintf(w, "wrote %s and %s\n", plural(len(written)-1, "document", "documents"), report)
	if res.Metrics == 0 {
		return fmt.Errorf("no metric could be imported; %s says why each was refused", report)
	}
	return nil
}

// readImportInput reads the input of an import: one file, or every YAML
// file (and, where the format reads them, JSON file) under a directory.
// Other files are listed without their bytes, so an importer can name the
// ones it refuses. Hidden entries and the format's generated directories
// are skipped. A symbolic link is never followed out of the input: one
// that leads out, or loops, fails the import; one that stays inside is
// skipped, since its target is read where it is.
func readImportInput(in string, imp importer) ([]importFile, error) {
	root, err := filepath.EvalSymlinks(in)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", in, errImportInput, err)
	}
	info, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", in, errImportInput, err)
	}
	r := &inputReader{root: root}
	if !info.IsDir() {
		f, err := r.read(root, filepath.Base(root))
		if err != nil {
			return nil, err
		}
		return []importFile{f}, nil
	}
	err = filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("%s: %w: %w", r.rel(p), errImportInput, err)
		}
		if p == root {
			return nil
		}
		name := e.Name()
		if strings.HasPrefix(name, ".") || (e.IsDir() && (name == "node_modules" || slices.Contains(imp.skip, name))) {
			if e.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if e.Type()&fs.ModeSymlink != 0 {
			return r.link(p)
		}
		if e.IsDir() || !e.Type().IsRegular() {
			return nil
		}
		if len(r.files) >= importFilesMax {
			return fmt.Errorf("%s: %w: it holds more than %d files", in, errImportInput, importFilesMax)
		}
		rel := r.rel(p)
		switch strings.ToLower(path.Ext(rel)) {
		case ".yml", ".yaml":
		case ".json":
			if !imp.readJSON {
				r.files = append(r.files, importFile{Path: rel})
				return nil
			}
		default:
			r.files = append(r.files, importFile{Path: rel})
			return nil
		}
		f, err := r.read(p, rel)
		if err != nil {
			return err
		}
		r.files = append(r.files, f)
		return nil
	})
	return r.files, err
}

type inputReader struct {
	root  string
	total int64
	files []importFile
}

func (r *inputReader) rel(p string) string {
	rel, err := filepath.Rel(r.root, p)
	if err != nil {
		return filepath.Base(p)
	}
	return filepath.ToSlash(rel)
}

// link checks a symbolic link inside the input: an error if it cannot be
// resolved or leads out of the input, nothing otherwise (it is skipped).
func (r *inputReader) link(p string) error {
	target, err := filepath.EvalSymlinks(p)
	if err != nil {
		return fmt.Errorf("%s: %w: it is a symbolic link that cannot be resolved (a loop, or a missing target)", r.rel(p), errImportInput)
	}
	if rel, err := filepath.Rel(r.root, target); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("%s: %w: it is a symbolic link that leads out of the input, and is not followed", r.rel(p), errImportInput)
	}
	return nil
}

// read reads one file within the bounds.
func (r *inputReader) read(p, rel string) (importFile, error) {
	f, err := os.Open(p)
	if err != nil {
		return importFile{}, fmt.Errorf("%s: %w: %w", rel, errImportInput, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, importFileMax+1))
	if err != nil {
		return importFile{}, fmt.Errorf("%s: %w: %w", rel, errImportInput, err)
	}
	if int64(len(data)) > importFileMax {
		return importFile{}, fmt.Errorf("%s: %w: it is larger than %d MiB, the most one input file may be", rel, errImportInput, importFileMax>>20)
	}
	if r.total += int64(len(data)); r.total > importTotalMax {
		return importFile{}, fmt.Errorf("%s: %w: the input is larger than %d MiB in all, the most an import reads", rel, errImportInput, importTotalMax>>20)
	}
	return importFile{Path: rel, Data: data}, nil
}

// imported hands an importer's result, which has the shared writer's
// shape field for field, to the writer.
func imported(format string, r *importread.Result) mdcatalog.Imported {
	dims := make([]mdcatalog.ImportedDimension, len(r.Dimensions))
	for i, d := range r.Dimensions {
		dims[i] = mdcatalog.ImportedDimension(d)
	}
	entries := make([]mdcatalog.ImportEntry, len(r.Entries))
	for i, e := range r.Entries {
		entries[i] = mdcatalog.ImportEntry(e)
	}
	return mdcatalog.Imported{Format: format, Definitions: r.Definitions, Glossary: r.Glossary, Dimensions: dims, Entries: entries}
}
