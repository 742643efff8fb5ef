package tools

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// moduleOfDir returns the folder of the module holding dir: the nearest
// folder at or above dir, inside the root, with a go.mod; "" if none.
func (w *Workspace) moduleOfDir(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return w.rel(d)
		}
		if d == w.Root || filepath.Dir(d) == d {
			return ""
		}
	}
}

// checkPackageLength walks the whole root and sums, per folder, the lines
// of its non-test .go files; a folder over MaxPackageLines is a violation.
func (w *Workspace) checkPackageLength() []Violation {
	lines := map[string]int{}
	var vs []Violation
	err := filepath.WalkDir(w.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" || slices.Contains(FileLengthSkip, w.rel(p)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") || !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n := bytes.Count(data, []byte("\n"))
		if len(data) > 0 && data[len(data)-1] != '\n' {
			n++
		}
		lines[filepath.Dir(p)] += n
		return nil
	})
	if err != nil {
		return []Violation{{Rule: RulePackageLength, Problem: "cannot walk: " + err.Error()}}
	}
	dirs := make([]string, 0, len(lines))
	for d := range lines {
		dirs = append(dirs, d)
	}
	slices.Sort(dirs)
	for _, d := range dirs {
		if n := lines[d]; n > MaxPackageLines {
			vs = append(vs, Violation{Rule: RulePackageLength, Module: w.moduleOfDir(d), File: w.rel(d),
				Problem: fmt.Sprintf("the package holds %d lines of non-test Go; the limit is %d", n, MaxPackageLines)})
		}
	}
	return vs
}

// checkFileLength walks the whole root for .go files over MaxFileLines.
func (w *Workspace) checkFileLength() []Violation {
	var vs []Violation
	err := filepath.WalkDir(w.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			vs = append(vs, Violation{Rule: RuleFileLength, File: w.rel(p), Problem: "cannot walk: " + err.Error()})
			return nil
		}
		if d.IsDir() {
			if d.Name() == ".git" || slices.Contains(FileLengthSkip, w.rel(p)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			vs = append(vs, Violation{Rule: RuleFileLength, File: w.rel(p), Problem: "cannot read: " + err.Error()})
			return nil
		}
		lines := bytes.Count(data, []byte("\n"))
		if len(data) > 0 && data[len(data)-1] != '\n' {
			lines++
		}
		if lines > MaxFileLines {
			vs = append(vs, Violation{Rule: RuleFileLength, Module: w.moduleOfDir(filepath.Dir(p)), File: w.rel(p),
				Problem: fmt.Sprintf("%d lines; the limit is %d", lines, MaxFileLines)})
		}
		return nil
	})
	if err != nil {
		vs = append(vs, Violation{Rule: RuleFileLength, Problem: "cannot walk the workspace: " + err.Error()})
	}
	return vs
}

// goFiles returns the .go files of the tree at dir that the go command
// would consider: it skips testdata, vendor and folders starting with "."
// or "_", and, unless allModules, folders below dir holding another module.
func goFiles(dir string, allModules bool) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p == dir {
				return nil
			}
			if name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil && !allModules {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") && d.Type().IsRegular() {
			files = append(files, p)
		}
		return nil
	})
	return files, err
}

// checkNoInit parses every .go file, tests included, of the modules that
// match InitFree and reports each init function.
func (w *Workspace) checkNoInit() []Violation {
	var vs []Violation
	for _, m := range w.Modules {
		if !matchAny(m.Folder, InitFree) {
			continue
		}
		files, err := goFiles(m.Dir, false)
		if err != nil {
			vs = append(vs, Violation{Rule: RuleNoInit, Module: m.Folder, Problem: "cannot walk the module: " + err.Error()})
			continue
		}
		fset := token.NewFileSet()
		for _, file := range files {
			f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
			if err != nil {
				vs = append(vs, Violation{Rule: RuleNoInit, Module: m.Folder, File: w.rel(file),
					Problem: "cannot parse, so it cannot be checked: " + err.Error()})
				continue
			}
			for _, decl := range f.Decls {
				if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "init" {
					vs = append(vs, Violation{Rule: RuleNoInit, Module: m.Folder,
						File:    fmt.Sprintf("%s:%d", w.rel(file), fset.Position(fn.Pos()).Line),
						Problem: "declares func init; register the adapter in the explicit table of cli instead"})
				}
			}
		}
	}
	return vs
}

// checkOneAdmissionBound checks that AdmissionPackage declares
// AdmissionConstructor and that exactly one non-test file of the
// workspace refers to it, in module AdmissionCaller.
func (w *Workspace) checkOneAdmissionBound() []Violation {
	rule := func(module, file, problem string) Violation {
		return Violation{Rule: RuleOneAdmissionBound, Module: module, Package: AdmissionPackage, File: file, Problem: problem}
	}
	var rt *Module
	for _, m := range w.Modules {
		if m.Path == AdmissionPackage {
			rt = m
		}
	}
	if rt == nil {
		return []Violation{rule("", "", "no module of the workspace is "+AdmissionPackage+
			", so the one-admission-bound rule cannot hold")}
	}
	name, declared, err := declares(rt.Dir, AdmissionConstructor)
	if err != nil {
		return []Violation{rule(rt.Folder, "", "cannot read the package: "+err.Error())}
	}
	if !declared {
		return []Violation{rule(rt.Folder, "", fmt.Sprintf("declares no exported func %s, so the one-bound rule "+
			"cannot be checked and must not pass; if the constructor was renamed, rename AdmissionConstructor "+
			"in tools/rules.go with it", AdmissionConstructor))}
	}
	refs, vs := w.admissionRefs(rt.Dir, name)
	switch {
	case len(refs) == 0:
		vs = append(vs, rule(AdmissionCaller, "", fmt.Sprintf("no non-test file refers to %s.%s; "+
			"the composition root in %s must build the one admission bound", name, AdmissionConstructor, AdmissionCaller)))
	case len(refs) > 1:
		var where []string
		for _, r := range refs {
			where = append(where, r.file)
		}
		vs = append(vs, rule("", strings.Join(where, ", "), fmt.Sprintf(
			"%d non-test references to %s.%s, want exactly 1 (in %s): each one builds another bound",
			len(refs), name, AdmissionConstructor, AdmissionCaller)))
	}
	for _, r := range refs {
		if r.module != AdmissionCaller {
			vs = append(vs, rule(r.module, r.file, fmt.Sprintf("refers to %s.%s outside module %s; "+
				"only the composition root may build the admission bound", name, AdmissionConstructor, AdmissionCaller)))
		}
	}
	return vs
}

// declares reports the package name of the non-test files in dir and
// whether they declare the exported function fn.
func declares(dir, fn string) (pkgName string, ok bool, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", false, err
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			return "", false, err
		}
		pkgName = f.Name.Name
		for _, decl := range f.Decls {
			if d, isFn := decl.(*ast.FuncDecl); isFn && d.Recv == nil && d.Name.Name == fn && ast.IsExported(fn) {
				ok = true
			}
		}
	}
	if pkgName == "" {
		pkgName = filepath.Base(dir)
	}
	return pkgName, ok, nil
}

// admissionRef is one reference to the admission constructor.
type admissionRef struct {
	module string // folder of the module holding it
	file   string // file:line relative to the root
}

// admissionRefs finds the references to AdmissionConstructor in every
// non-test .go file of the root, resolving the import of AdmissionPackage
// whatever its alias (a dot import included); inside the package, in rtDir,
// unqualified uses count too. Files that cannot be parsed are violations.
func (w *Workspace) admissionRefs(rtDir, pkgName string) ([]admissionRef, []Violation) {
	files, err := goFiles(w.Root, true)
	if err != nil {
		return nil, []Violation{{Rule: RuleOneAdmissionBound, Problem: "cannot walk the workspace: " + err.Error()}}
	}
	var refs []admissionRef
	var vs []Violation
	fset := token.NewFileSet()
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		src, err := os.ReadFile(file)
		if err != nil || !bytes.Contains(src, []byte(AdmissionConstructor)) {
			continue // a reference spells the name
		}
		f, err := parser.ParseFile(fset, file, src, 0)
		if err != nil {
			vs = append(vs, Violation{Rule: RuleOneAdmissionBound, Module: w.moduleOfDir(filepath.Dir(file)),
				File: w.rel(file), Problem: "cannot parse, so it cannot be checked: " + err.Error()})
			continue
		}
		qualifiers, bare := importNames(f, pkgName)
		if filepath.Dir(file) == rtDir && f.Name.Name == pkgName {
			bare = true
		}
		for _, pos := range references(f, AdmissionConstructor, qualifiers, bare) {
			refs = append(refs, admissionRef{
				module: w.moduleOfDir(filepath.Dir(file)),
				file:   fmt.Sprintf("%s:%d", w.rel(file), fset.Position(pos).Line),
			})
		}
	}
	return refs, vs
}

// importNames returns the names under which f imports AdmissionPackage,
// and whether f dot-imports it.
func importNames(f *ast.File, pkgName string) (names map[string]bool, dot bool) {
	names = map[string]bool{}
	for _, spec := range f.Imports {
		if p, err := strconv.Unquote(spec.Path.Value); err != nil || p != AdmissionPackage {
			continue
		}
		switch {
		case spec.Name == nil:
			names[pkgName] = true
		case spec.Name.Name == ".":
			dot = true
		case spec.Name.Name != "_":
			names[spec.Name.Name] = true
		}
	}
	return names, dot
}

// references returns the positions in f of the selectors q.name whose q
// is one of qualifiers and not a local name, and, if bare, of the
// unqualified uses of name that are not declarations of something else.
func references(f *ast.File, name string, qualifiers map[string]bool, bare bool) []token.Pos {
	notUses := map[*ast.Ident]bool{} // identifiers that name, but do not use
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			notUses[n.Sel] = true
		case *ast.FuncDecl:
			notUses[n.Name] = true
		case *ast.Field:
			for _, id := range n.Names {
				notUses[id] = true
			}
		case *ast.ImportSpec:
			if n.Name != nil {
				notUses[n.Name] = true
			}
		case *ast.LabeledStmt:
			notUses[n.Label] = true
		case *ast.BranchStmt:
			if n.Label != nil {
				notUses[n.Label] = true
			}
		}
		return true
	})
	var refs []token.Pos
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			// A qualifier resolved by the parser is a local name
			// shadowing the import, not the package.
			if x, ok := n.X.(*ast.Ident); ok && x.Obj == nil && qualifiers[x.Name] && n.Sel.Name == name {
				refs = append(refs, n.Sel.Pos())
			}
		case *ast.Ident:
			// Unresolved, or resolved to the function in the same file.
			if bare && n.Name == name && !notUses[n] && (n.Obj == nil || n.Obj.Kind == ast.Fun) {
				refs = append(refs, n.Pos())
			}
		}
		return true
	})
	return refs
}
