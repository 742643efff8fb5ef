package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Workspace is a workspace root with the modules it holds. Load reads the
// go.work and go.mod files; the packages of the modules are listed on the
// first check that needs them, and kept.
type Workspace struct {
	// Root is the absolute path of the workspace root.
	Root string
	// Modules are the modules of go.work and every folder with a go.mod
	// under adapters/, sorted by folder.
	Modules []*Module

	listOnce sync.Once
}

// Module is one module of a workspace.
type Module struct {
	// Folder is the module's folder relative to the root, with slashes.
	Folder string
	// Dir is the absolute path of the folder.
	Dir string
	// Path is the module path its go.mod declares; empty if go.mod cannot
	// be read, and then GoModErr says why.
	Path string
	// Requires lists the module paths its go.mod requires.
	Requires []string
	// InWork reports whether go.work lists the module.
	InWork bool
	// GoModErr is the error reading the module's go.mod, if any.
	GoModErr error

	pkgs    []*listedPackage          // the module's own packages and test variants
	deps    map[string]*listedPackage // every listed package by import path
	broken  []*listedPackage          // listed packages with an error, once each
	listErr error                     // go list failed as a whole
}

// listedPackage is the part of "go list -json" the checks read.
type listedPackage struct {
	ImportPath string
	Name       string
	Dir        string
	ForTest    string
	Standard   bool
	Module     *struct{ Path string }
	GoFiles    []string
	CgoFiles   []string
	Imports    []string
	Error      *struct{ Pos, Err string }

	test bool // a variant compiled for a test: test imports are allowed
}

// Load reads the workspace at root: the modules go.work lists and every
// folder with a go.mod under adapters/. It fails only if there is no
// readable go.work; a module with a broken go.mod is loaded with GoModErr
// set, for the checks to report.
func Load(root string) (*Workspace, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("load workspace %s: %w", root, err)
	}
	out, err := goCommand(abs, "work", "edit", "-json", filepath.Join(abs, "go.work"))
	if err != nil {
		return nil, fmt.Errorf("load workspace %s: %w", abs, err)
	}
	var work struct{ Use []struct{ DiskPath string } }
	if err := json.Unmarshal(out, &work); err != nil {
		return nil, fmt.Errorf("load workspace %s: go.work: %w", abs, err)
	}
	w := &Workspace{Root: abs}
	seen := map[string]*Module{}
	add := func(folder string, inWork bool) {
		if m, ok := seen[folder]; ok {
			m.InWork = m.InWork || inWork
			return
		}
		m := &Module{Folder: folder, Dir: filepath.Join(abs, filepath.FromSlash(folder)), InWork: inWork}
		seen[folder] = m
		w.Modules = append(w.Modules, m)
	}
	for _, u := range work.Use {
		dir := u.DiskPath
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(abs, dir)
		}
		rel, err := filepath.Rel(abs, dir)
		if err != nil {
			rel = dir
		}
		add(filepath.ToSlash(rel), true)
	}
	mods, _ := filepath.Glob(filepath.Join(abs, "adapters", "*", "go.mod"))
	for _, gomod := range mods {
		add("adapters/"+filepath.Base(filepath.Dir(gomod)), false)
	}
	slices.SortFunc(w.Modules, func(a, b *Module) int { return strings.Compare(a.Folder, b.Folder) })
	for _, m := range w.Modules {
		m.readGoMod()
	}
	return w, nil
}

// readGoMod fills Path and Requires from the module's go.mod.
func (m *Module) readGoMod() {
	out, err := goCommand(m.Dir, "mod", "edit", "-json", filepath.Join(m.Dir, "go.mod"))
	if err != nil {
		m.GoModErr = err
		return
	}
	var mod struct {
		Module  struct{ Path string }
		Require []struct{ Path string }
	}
	if err := json.Unmarshal(out, &mod); err != nil {
		m.GoModErr = fmt.Errorf("go.mod: %w", err)
		return
	}
	m.Path = mod.Module.Path
	for _, r := range mod.Require {
		m.Requires = append(m.Requires, r.Path)
	}
}

// Module returns the module in folder, or nil.
func (w *Workspace) Module(folder string) *Module {
	for _, m := range w.Modules {
		if m.Folder == folder {
			return m
		}
	}
	return nil
}

// list runs go list in every module once, concurrently.
func (w *Workspace) list() {
	w.listOnce.Do(func() {
		var wg sync.WaitGroup
		for _, m := range w.Modules {
			if m.GoModErr != nil {
				continue
			}
			wg.Go(m.list)
		}
		wg.Wait()
	})
}

// list loads the module's packages, their test variants and everything
// they import, as the module builds on its own.
func (m *Module) list() {
	out, err := goCommand(m.Dir, "list", "-e", "-deps", "-test", "-json", "./...")
	if err != nil {
		m.listErr = err
		return
	}
	m.deps = map[string]*listedPackage{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		p := new(listedPackage)
		if err := dec.Decode(p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			m.listErr = fmt.Errorf("decode go list output: %w", err)
			return
		}
		base := basePath(p.ImportPath)
		if _, ok := m.deps[base]; !ok {
			m.deps[base] = p
		}
		if p.Error != nil && !slices.ContainsFunc(m.broken, func(q *listedPackage) bool {
			return basePath(q.ImportPath) == base && q.Error.Err == p.Error.Err
		}) {
			m.broken = append(m.broken, p)
		}
		if p.Module == nil || p.Module.Path != m.Path {
			continue
		}
		if p.ForTest == "" && strings.HasSuffix(p.ImportPath, ".test") {
			continue // the generated test main: its imports are not ours
		}
		p.test = p.ForTest != ""
		m.pkgs = append(m.pkgs, p)
	}
	// Non-test variants first, so an import found in both is reported as
	// an import of the package, not of its tests.
	slices.SortStableFunc(m.pkgs, func(a, b *listedPackage) int {
		switch {
		case a.test == b.test:
			return 0
		case a.test:
			return 1
		}
		return -1
	})
}

// goCommand runs the go command in dir with GOWORK=off and returns its
// standard output; the error carries its standard error.
func goCommand(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("go %s (in %s, GOWORK=off): %s", strings.Join(args, " "), dir, msg)
	}
	return out, nil
}

// basePath strips the " [p.test]" variant suffix go list adds to packages
// compiled for a test.
func basePath(importPath string) string {
	if i := strings.Index(importPath, " ["); i >= 0 {
		return importPath[:i]
	}
	return importPath
}

// rel returns path relative to the root, with slashes.
func (w *Workspace) rel(path string) string {
	r, err := filepath.Rel(w.Root, path)
	if err != nil {
		return filepath.ToSlash(path)
	}
	return filepath.ToSlash(r)
}

// Violation is one breach of a rule, naming what breaches it.
type Violation struct {
	// Rule is the rule broken.
	Rule RuleID
	// Module is the folder of the offending module; empty when the breach
	// is not in one module.
	Module string
	// Package is the offending package's import path, if any.
	Package string
	// File is the offending file (and line, if known) relative to the
	// root, if any.
	File string
	// Problem says what is wrong.
	Problem string
}

// String renders the violation with the rule's number, name and reason.
func (v Violation) String() string {
	r, _ := RuleByID(v.Rule)
	var b strings.Builder
	fmt.Fprintf(&b, "rule %d %s violated", r.ID, r.Name)
	if v.Module != "" {
		fmt.Fprintf(&b, ": module %s", v.Module)
	}
	if v.Package != "" {
		fmt.Fprintf(&b, ", package %s", v.Package)
	}
	if v.File != "" {
		fmt.Fprintf(&b, ", file %s", v.File)
	}
	fmt.Fprintf(&b, ": %s\n\twhy: %s", v.Problem, r.Reason)
	return b.String()
}

// Report renders violations one after another, for a failing test.
func Report(vs []Violation) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d architecture violation(s):\n", len(vs))
	for _, v := range vs {
		b.WriteString(v.String())
		b.WriteString("\n")
	}
	return b.String()
}

// Check runs one rule on the workspace and returns its violations.
func (w *Workspace) Check(id RuleID) []Violation {
	switch id {
	case RuleAllowedImports:
		return w.checkAllowedImports()
	case RuleAdapterClasses:
		return w.checkAdapterClasses()
	case RuleAppIsolation:
		return w.checkAppIsolation()
	case RuleDomainIsolation:
		return w.checkDomainIsolation()
	case RuleFileLength:
		return w.checkFileLength()
	case RuleNoInit:
		return w.checkNoInit()
	case RuleOneAdmissionBound:
		return w.checkOneAdmissionBound()
	case RuleEngineLayers:
		return w.checkEngineLayers()
	case RulePackageLength:
		return w.checkPackageLength()
	}
	return []Violation{{Rule: id, Problem: fmt.Sprintf("no checker for rule %d", id)}}
}

// CheckAll runs every rule of Rules and returns all the violations.
func (w *Workspace) CheckAll() []Violation {
	var vs []Violation
	for _, r := range Rules {
		vs = append(vs, w.Check(r.ID)...)
	}
	return vs
}
