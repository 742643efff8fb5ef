package mdcatalog

import (
	"fmt"
	"strings"
	"unicode"

	"sutura.dev/domain"
)

// ImportCount is how many constructs of one kind an import read, by status.
type ImportCount struct {
	Kind                       string
	Imported, Refused, Ignored int
}

// ImportCounts counts entries per kind, kinds in the order they first
// appear.
func ImportCounts(entries []ImportEntry) []ImportCount {
	var out []ImportCount
	at := map[string]int{}
	for _, e := range entries {
		i, ok := at[e.Kind]
		if !ok {
			i = len(out)
			at[e.Kind] = i
			out = append(out, ImportCount{Kind: e.Kind})
		}
		switch e.Status {
		case ImportImported:
			out[i].Imported++
		case ImportRefused:
			out[i].Refused++
		default:
			out[i].Ignored++
		}
	}
	return out
}

// String renders a count as one summary line: "metric: 3 imported, 2
// refused" (", 1 ignored" when some were).
func (c ImportCount) String() string {
	s := fmt.Sprintf("%s: %d imported, %d refused", c.Kind, c.Imported, c.Refused)
	if c.Ignored > 0 {
		s += fmt.Sprintf(", %d ignored", c.Ignored)
	}
	return s
}

// renderReport writes the import report: a summary table, then every
// entry, grouped by kind, in input order. Names that are not identifiers
// are not repeated (the file and line say where they are), and no value of
// the input is quoted: the reasons are sutura's own words.
func renderReport(format string, opts ImportOptions, entries []ImportEntry) []byte {
	var b strings.Builder
	b.WriteString("# Import report\n\n")
	fmt.Fprintf(&b, "Input: %s (%s). Every model reads from source `%s`; every metric is restricted to audience `%s`.\n\n",
		safeText(opts.Input), safeText(format), opts.Source, opts.Audience)
	b.WriteString("Every construct read from the input is listed once below, with what it became or the reason it\n" +
		"was not imported. Nothing was approximated: what sutura cannot express exactly is refused here.\n" +
		"Review each imported metric (its measure, time column, grains, dimensions and required filters)\n" +
		"against its source, then change its audience: until then no one can see it.\n\n")
	counts := ImportCounts(entries)
	b.WriteString("| kind | imported | refused | ignored |\n| --- | ---: | ---: | ---: |\n")
	for _, c := range counts {
		fmt.Fprintf(&b, "| %s | %d | %d | %d |\n", c.Kind, c.Imported, c.Refused, c.Ignored)
	}
	for _, c := range counts {
		fmt.Fprintf(&b, "\n## %s\n\n", c.Kind)
		for _, e := range entries {
			if e.Kind != c.Kind {
				continue
			}
			switch {
			case e.Name == "" && e.File != "":
				fmt.Fprintf(&b, "- %s", safeText(e.File)) // a whole file
			default:
				fmt.Fprintf(&b, "- %s", reportName(e.Name, e.Status == ImportImported))
			}
			if e.File != "" && e.Name != "" {
				fmt.Fprintf(&b, " (%s", safeText(e.File))
				if e.Line > 0 {
					fmt.Fprintf(&b, ":%d", e.Line)
				}
				b.WriteString(")")
			}
			switch e.Status {
			case ImportImported:
				fmt.Fprintf(&b, ": imported as %s\n", oneLine(e.Became))
			case ImportRefused:
				fmt.Fprintf(&b, ": **refused**: %s\n", oneLine(e.Reason))
			default:
				fmt.Fprintf(&b, ": ignored: %s\n", oneLine(e.Reason))
			}
			if e.Status == ImportRefused {
				continue // what else there is to know about it is moot
			}
			for _, n := range e.Notes {
				fmt.Fprintf(&b, "  - %s\n", oneLine(n))
			}
		}
	}
	return []byte(b.String())
}

// reportName renders a construct's name: code-quoted when every dotted
// part is an identifier or when it was imported (a glossary phrase), and
// otherwise a description that quotes nothing of a refused input.
func reportName(name string, imported bool) string {
	if name == "" {
		return "(unnamed)"
	}
	if imported && len(name) <= 200 {
		return "`" + safeText(name) + "`"
	}
	for _, part := range strings.Split(name, ".") {
		if domain.CheckIdent(part) != nil {
			return "(a name that is not an identifier)"
		}
	}
	return "`" + name + "`"
}

// safeText keeps a file path or label on one line and free of Markdown
// control characters that could change the report's structure.
func safeText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case unicode.IsControl(r), r == '`', r == '*', r == '|', r == '<', r == '>', r == '[', r == ']':
			b.WriteRune('_')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
