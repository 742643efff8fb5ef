package tools

import (
	"bufio"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// A Citation problem is a comment of a Go file that sends a reader to a
// document the repository does not hold, or to a section that document
// does not have.
type Citation struct {
	File    string // the Go file, relative to the root, with its line: "app/call.go:12"
	Problem string // what is wrong, naming the cited document and section
}

func (c Citation) String() string { return c.File + ": " + c.Problem }

// citedDoc is a document under docs/ named in a comment, with an optional
// section: "docs/contract.md §4.2". A section's trailing period belongs to
// the sentence, not to the number.
var citedDoc = regexp.MustCompile(`docs/([A-Za-z0-9_-]+\.md)(?:\s+§([0-9]+(?:\.[0-9]+)*))?`)

// outside are the ways a comment could cite a document that is not in the
// repository: the team's private specification, by any of its names, and
// a section of an architecture document not named as docs/architecture.md
// (the specification has one too).
var outside = []struct {
	name string
	re   *regexp.Regexp
}{
	{"the team's private product specification", regexp.MustCompile(`product\.md`)},
	{"the team's private shared folder", regexp.MustCompile(`\.\./shared`)},
	{"the team's private specification folder", regexp.MustCompile(`shared/spec`)},
	{"an architecture section outside docs/", regexp.MustCompile(`(^|[^/A-Za-z])architecture\.md\s+§`)},
}

// CheckCitations reads the comments of every Go file under root (skipping
// .git and tools/testdata) and returns each citation of a document that is
// not in the repository, of a docs/ file that does not exist, or of a
// section (§N or §N.M) that the cited Markdown file has no heading for. A
// section is a heading whose text starts with its number: "## 4. Outcomes"
// is §4, "### 4.2 Canonical cell rendering" is §4.2.
func CheckCitations(root string) ([]Citation, error) {
	sections := map[string]map[string]bool{} // doc name → its section numbers; nil when absent
	var out []Citation
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if d.Name() == ".git" || d.Name() == "node_modules" || rel == "tools/testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || !d.Type().IsRegular() {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("citations: %w", err)
		}
		for _, group := range f.Comments {
			// A citation may break across two comment lines; join the
			// group's text with spaces so "docs/contract.md\n// §11" reads
			// as one.
			var b strings.Builder
			for _, c := range group.List {
				text := strings.TrimPrefix(strings.TrimPrefix(c.Text, "//"), "/*")
				b.WriteString(strings.TrimSuffix(text, "*/"))
				b.WriteByte(' ')
			}
			text := b.String()
			at := fmt.Sprintf("%s:%d", rel, fset.Position(group.Pos()).Line)
			for _, o := range outside {
				if o.re.MatchString(text) {
					out = append(out, Citation{at, "cites " + o.name + ", which is not in the repository; cite docs/ instead"})
				}
			}
			for _, m := range citedDoc.FindAllStringSubmatch(text, -1) {
				doc, section := m[1], m[2]
				have, ok := sections[doc]
				if !ok {
					have, err = headingNumbers(filepath.Join(root, "docs", doc))
					if err != nil {
						return err
					}
					sections[doc] = have
				}
				switch {
				case have == nil:
					out = append(out, Citation{at, "cites docs/" + doc + ", which does not exist"})
				case section != "" && !have[section]:
					out = append(out, Citation{at, "cites docs/" + doc + " §" + section + ", which has no such section"})
				}
			}
		}
		return nil
	})
	return out, err
}

// headingNumber is the number a Markdown heading starts with: "## 4." or
// "### 4.2 ".
var headingNumber = regexp.MustCompile(`^#{1,6}\s+([0-9]+(?:\.[0-9]+)*)\.?(\s|$)`)

// headingNumbers returns the section numbers of the Markdown file at path,
// or nil when there is no such file.
func headingNumbers(path string) (map[string]bool, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	have := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m := headingNumber.FindStringSubmatch(sc.Text()); m != nil {
			have[m[1]] = true
		}
	}
	return have, sc.Err()
}
