package tools

import (
	"fmt"
	"go/parser"
	"go/token"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// edge is one direct import of a package of a module, classified.
type edge struct {
	from      *listedPackage
	to        string // the imported path, without a test-variant suffix
	std       bool   // to is in the standard library
	own       bool   // to is the importing module's own code
	workspace bool   // to is under ModulePrefix
	module    string // folder of the workspace module providing to, "" if none does
}

// what names the imported package for a message.
func (e edge) what() string {
	switch {
	case e.workspace && e.module != "":
		return fmt.Sprintf("%s (module %s)", e.to, e.module)
	case e.workspace:
		return fmt.Sprintf("%s (no workspace module provides it)", e.to)
	}
	return e.to
}

// edges lists the direct imports of the module's packages and test
// variants, each (package, import) pair once, the non-test variant first.
func (w *Workspace) edges(m *Module) []edge {
	var es []edge
	seen := map[[2]string]bool{}
	for _, p := range m.pkgs {
		for _, imp := range p.Imports {
			to := basePath(imp)
			key := [2]string{basePath(p.ImportPath), to}
			if seen[key] {
				continue
			}
			seen[key] = true
			es = append(es, w.classify(m, p, to))
		}
	}
	return es
}

// classify builds the edge from p, a package of m, to the import path to.
func (w *Workspace) classify(m *Module, p *listedPackage, to string) edge {
	e := edge{from: p, to: to}
	dep := m.deps[to]
	var modPath string
	if dep != nil && dep.Module != nil {
		modPath = dep.Module.Path
	}
	switch {
	case dep != nil && dep.Standard:
		e.std = true
	case dep == nil && isStdPath(to):
		e.std = true
	case modPath == m.Path || modPath == "" && within(to, m.Path):
		e.own = true
	case strings.HasPrefix(to, ModulePrefix):
		e.workspace = true
		e.module = w.folderOf(modPath, to)
	}
	return e
}

// folderOf returns the folder of the workspace module with path modPath,
// or, when the go command could not tell, of the workspace module whose
// path is the longest prefix of importPath; "" if none.
func (w *Workspace) folderOf(modPath, importPath string) string {
	best := ""
	for _, m := range w.Modules {
		if m.Path == "" {
			continue
		}
		if modPath != "" && m.Path == modPath {
			return m.Folder
		}
		if modPath == "" && within(importPath, m.Path) && len(m.Path) > len(ModulePrefix+best) {
			best = m.Folder
		}
	}
	if best == "" && modPath != "" {
		return strings.TrimPrefix(modPath, ModulePrefix)
	}
	return best
}

// within reports whether importPath is prefix or below it.
func within(importPath, prefix string) bool {
	return importPath == prefix || strings.HasPrefix(importPath, prefix+"/")
}

// withinAny reports whether importPath is within one of the prefixes.
func withinAny(importPath string, prefixes []string) bool {
	return slices.ContainsFunc(prefixes, func(p string) bool { return within(importPath, p) })
}

// matchAny reports whether folder matches one of the path.Match patterns.
func matchAny(folder string, patterns []string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool {
		ok, _ := path.Match(p, folder)
		return ok
	})
}

// isStdPath reports whether an import path looks like the standard
// library's: no dot in its first element. It is the fallback for paths
// the go command did not list.
func isStdPath(importPath string) bool {
	first, _, _ := strings.Cut(importPath, "/")
	return !strings.Contains(first, ".")
}

// violation builds the violation of rule by edge e of module m.
func (w *Workspace) violation(rule RuleID, m *Module, e edge, problem string) Violation {
	pkg := basePath(e.from.ImportPath)
	if e.from.test {
		pkg += " (tests)"
	}
	return Violation{Rule: rule, Module: m.Folder, Package: pkg, File: w.importingFiles(e.from, e.to), Problem: problem}
}

// importingFiles names the files of p that import importPath.
func (w *Workspace) importingFiles(p *listedPackage, importPath string) string {
	var files []string
	fset := token.NewFileSet()
	for _, name := range slices.Concat(p.GoFiles, p.CgoFiles) {
		file := filepath.Join(p.Dir, name)
		f, err := parser.ParseFile(fset, file, nil, parser.ImportsOnly)
		if err != nil {
			continue
		}
		for _, spec := range f.Imports {
			if got, err := strconv.Unquote(spec.Path.Value); err == nil && got == importPath {
				files = append(files, fmt.Sprintf("%s:%d", w.rel(file), fset.Position(spec.Pos()).Line))
			}
		}
	}
	return strings.Join(files, ", ")
}

// unlisted reports a module whose packages could not be listed at all, so
// that an import rule never passes for want of reading it.
func unlisted(rule RuleID, m *Module) []Violation {
	switch {
	case m.GoModErr != nil:
		return []Violation{{Rule: rule, Module: m.Folder, File: m.Folder + "/go.mod",
			Problem: "cannot read go.mod, so its imports cannot be checked: " + m.GoModErr.Error()}}
	case m.listErr != nil:
		return []Violation{{Rule: rule, Module: m.Folder,
			Problem: "cannot list its packages, so its imports cannot be checked: " + m.listErr.Error()}}
	}
	return nil
}

// checkAllowedImports checks every module's imports against its row.
func (w *Workspace) checkAllowedImports() []Violation {
	w.list()
	var vs []Violation
	for _, m := range w.Modules {
		rule, ok := ModuleRuleFor(m.Folder)
		if !ok {
			where := "go.work lists it"
			if !m.InWork {
				where = "it has a go.mod under adapters/"
			}
			vs = append(vs, Violation{Rule: RuleAllowedImports, Module: m.Folder, Problem: fmt.Sprintf(
				"module %s has no rule (%s): add a rule for it to ModuleRules in tools/rules.go, with its reason",
				m.Folder, where)})
			continue
		}
		if u := unlisted(RuleAllowedImports, m); u != nil {
			vs = append(vs, u...)
			continue
		}
		if want := ModulePrefix + m.Folder; m.Path != want {
			vs = append(vs, Violation{Rule: RuleAllowedImports, Module: m.Folder, File: m.Folder + "/go.mod",
				Problem: fmt.Sprintf("module path is %s, want %s", m.Path, want)})
		}
		if len(m.broken) > 0 {
			vs = append(vs, Violation{Rule: RuleAllowedImports, Module: m.Folder, File: m.Folder + "/go.mod",
				Problem: brokenProblem(m.broken)})
		}
		for _, e := range w.edges(m) {
			if problem := rule.forbids(e); problem != "" {
				vs = append(vs, w.violation(RuleAllowedImports, m, e, problem))
			}
		}
	}
	return vs
}

// maxBroken is how many package errors one violation spells out.
const maxBroken = 5

// brokenProblem describes the package errors of a module that does not
// build on its own, the first few in full.
func brokenProblem(broken []*listedPackage) string {
	var b strings.Builder
	fmt.Fprintf(&b, "does not build on its own (GOWORK=off): go list reports %d package error(s)", len(broken))
	for i, p := range broken {
		if i == maxBroken {
			fmt.Fprintf(&b, "\n\t\t... and %d more", len(broken)-maxBroken)
			break
		}
		msg, _, _ := strings.Cut(p.Error.Err, "\n")
		msg, _, _ = strings.Cut(msg, "; to add")
		fmt.Fprintf(&b, "\n\t\t%s: %s", basePath(p.ImportPath), msg)
	}
	return b.String()
}

// forbids returns why the row forbids edge e, or "" if it allows it.
func (r ModuleRule) forbids(e edge) string {
	switch {
	case e.std || e.own:
		return ""
	case e.workspace:
		if r.AnyModule || e.module != "" && slices.Contains(r.Modules, e.module) || e.from.test && slices.Contains(r.TestPackages, e.to) {
			return ""
		}
		return fmt.Sprintf("imports %s; from the workspace %s may import only %s",
			e.what(), r.Folder, list(r.Modules))
	}
	if r.AnyThirdParty || withinAny(e.to, r.ThirdParty) || e.from.test && withinAny(e.to, r.TestThirdParty) {
		return ""
	}
	if e.from.test {
		return fmt.Sprintf("its tests import %s; third-party code allowed in %s: %s, and in its tests also %s",
			e.to, r.Folder, list(r.ThirdParty), list(r.TestThirdParty))
	}
	return fmt.Sprintf("imports %s; third-party code allowed in %s: %s (in its tests also %s)",
		e.to, r.Folder, list(r.ThirdParty), list(r.TestThirdParty))
}

// list renders a list of names for a message.
func list(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// checkAdapterClasses checks that no member of a class imports another,
// and that no shared library of a class imports a member.
func (w *Workspace) checkAdapterClasses() []Violation {
	w.list()
	var vs []Violation
	for _, c := range AdapterClasses {
		for _, m := range w.Modules {
			if slices.Contains(c.Libraries, m.Folder) {
				if u := unlisted(RuleAdapterClasses, m); u != nil {
					vs = append(vs, u...)
					continue
				}
				for _, e := range w.edges(m) {
					if e.workspace && slices.Contains(c.Members, e.module) {
						vs = append(vs, w.violation(RuleAdapterClasses, m, e, fmt.Sprintf(
							"imports %s; %s is a shared library of the %s, which import it, so it imports none of them",
							e.what(), m.Folder, c.Name)))
					}
				}
				continue
			}
			if !slices.Contains(c.Members, m.Folder) {
				continue
			}
			if u := unlisted(RuleAdapterClasses, m); u != nil {
				vs = append(vs, u...)
				continue
			}
			for _, e := range w.edges(m) {
				if e.workspace && e.module != m.Folder && slices.Contains(c.Members, e.module) {
					vs = append(vs, w.violation(RuleAdapterClasses, m, e, fmt.Sprintf(
						"imports %s; %s and %s are both %s, and %s", e.what(), m.Folder, e.module, c.Name, c.Reason)))
				}
			}
		}
	}
	return vs
}

// checkAppIsolation checks that app imports no adapter and no transport.
func (w *Workspace) checkAppIsolation() []Violation {
	w.list()
	m := w.Module(AppFolder)
	if m == nil {
		return []Violation{{Rule: RuleAppIsolation, Module: AppFolder,
			Problem: "the workspace has no module " + AppFolder + " to check"}}
	}
	if u := unlisted(RuleAppIsolation, m); u != nil {
		return u
	}
	var vs []Violation
	for _, e := range w.edges(m) {
		if e.workspace && matchAny(e.module, AppForbidden) {
			vs = append(vs, w.violation(RuleAppIsolation, m, e, fmt.Sprintf(
				"imports %s, an adapter or transport (app must import none of %s)", e.what(), list(AppForbidden))))
		}
	}
	return vs
}

// checkDomainIsolation checks that domain imports only the standard
// library and that its go.mod requires nothing.
func (w *Workspace) checkDomainIsolation() []Violation {
	w.list()
	m := w.Module(DomainFolder)
	if m == nil {
		return []Violation{{Rule: RuleDomainIsolation, Module: DomainFolder,
			Problem: "the workspace has no module " + DomainFolder + " to check"}}
	}
	if u := unlisted(RuleDomainIsolation, m); u != nil {
		return u
	}
	var vs []Violation
	if len(m.Requires) > 0 {
		vs = append(vs, Violation{Rule: RuleDomainIsolation, Module: m.Folder, File: m.Folder + "/go.mod",
			Problem: "go.mod requires " + list(m.Requires) + "; it must require nothing"})
	}
	for _, e := range w.edges(m) {
		if !e.std && !e.own {
			vs = append(vs, w.violation(RuleDomainIsolation, m, e, fmt.Sprintf(
				"imports %s; domain imports only the standard library, in its tests too", e.what())))
		}
	}
	return vs
}
