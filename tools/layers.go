package tools

import (
	"fmt"
	"slices"
	"strings"
)

// engineLayer returns the index in EngineLayers of the package with the
// import path importPath of the module at modPath (an external test
// package counts as the package it tests), and false if it is not listed.
func engineLayer(modPath, importPath string) (int, bool) {
	importPath = strings.TrimSuffix(importPath, "_test")
	rel := "."
	if importPath != modPath {
		var ok bool
		if rel, ok = strings.CutPrefix(importPath, modPath+"/"); !ok {
			return 0, false
		}
	}
	i := slices.Index(EngineLayers, rel)
	return i, i >= 0
}

// checkEngineLayers checks that every package of the engine's module has
// a layer and imports no package of a higher layer.
func (w *Workspace) checkEngineLayers() []Violation {
	w.list()
	m := w.Module(EngineFolder)
	if m == nil {
		return []Violation{{Rule: RuleEngineLayers, Module: EngineFolder,
			Problem: "the workspace has no module " + EngineFolder + " to check"}}
	}
	if u := unlisted(RuleEngineLayers, m); u != nil {
		return u
	}
	var vs []Violation
	unplaced := map[string]bool{}
	for _, p := range m.pkgs {
		base := strings.TrimSuffix(basePath(p.ImportPath), "_test")
		if _, ok := engineLayer(m.Path, base); !ok && !unplaced[base] {
			unplaced[base] = true
			vs = append(vs, Violation{Rule: RuleEngineLayers, Module: m.Folder, Package: base, Problem: fmt.Sprintf(
				"package %s is in no layer: add it to EngineLayers in tools/rules.go, above what it imports", base)})
		}
	}
	for _, e := range w.edges(m) {
		if !e.own {
			continue
		}
		from, ok := engineLayer(m.Path, basePath(e.from.ImportPath))
		if !ok {
			continue // reported above
		}
		to, ok := engineLayer(m.Path, e.to)
		if ok && to > from {
			vs = append(vs, w.violation(RuleEngineLayers, m, e, fmt.Sprintf(
				"imports %s, of layer %q, above its own layer %q: the engine's packages import downwards only (%s)",
				e.to, EngineLayers[to], EngineLayers[from], strings.Join(EngineLayers, " < "))))
		}
	}
	return vs
}
