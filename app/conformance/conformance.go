// Package conformance holds the contract suites of app's driven ports,
// which every adapter runs against itself from its own module's tests
// (architecture.md §2 lets an adapter's tests, never its code, import this
// package and app/apptest).
//
// The data-system suite is a corpus of questions over the demo with
// expected answers computed by an independent engine (DuckDB, from the same
// files; see testdata/README.md): RunDataSystem asks it of a data system at
// its port, Run through an app.Surface. The same question must give the
// same rows and the same refusals on every data system; only the SQL text
// differs. The catalogue suite (RunCatalog) and the audit-sink suite
// (RunAuditSink) check the other two ports' contracts.
package conformance

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path"
	"sort"
	"strconv"
	"testing"

	"sutura.dev/app"
	"sutura.dev/domain"
	"sutura.dev/semantic"
)

//go:embed testdata/corpus
var corpus embed.FS

// demoDefinitions are the demo catalogue's definitions (examples/demo/
// catalog) as domain JSON: an adapter's tests may not import the markdown
// catalogue reader. The catalog-markdown module's tests keep the file equal
// to the catalogue (and rewrite it with -update).
//
//go:embed testdata/demo-definitions.json
var demoDefinitions []byte

// DemoSource is the alias of the demo's one source: the data system under
// test serves it.
const DemoSource = "demo"

// DemoVersion is the version label of DemoBundle.
const DemoVersion = "demo"

// Today is the date the corpus's relative ranges resolve against.
var Today = domain.DateOf(2026, 7, 1)

// DemoDefinitions returns the demo catalogue's definitions, a fresh copy:
// the models (the tables of examples/demo/data) a data system under test
// is opened with, and the metrics the corpus asks.
func DemoDefinitions() (domain.Definitions, error) {
	var d domain.Definitions
	if err := json.Unmarshal(demoDefinitions, &d); err != nil {
		return domain.Definitions{}, fmt.Errorf("conformance: the demo definitions: %w", err)
	}
	return d, nil
}

// DemoBundle returns the bundle of DemoDefinitions, without knowledge.
func DemoBundle() (*domain.Bundle, error) {
	d, err := DemoDefinitions()
	if err != nil {
		return nil, err
	}
	return domain.NewBundle(DemoVersion, d, domain.Knowledge{})
}

// Case is one question of the corpus and its expected outcome.
type Case struct {
	File      string          `json:"-"`
	Name      string          `json:"name"`
	Question  json.RawMessage `json:"question"`
	Principal string          `json:"principal"` // operator (default) or anonymous
	Expect    Expect          `json:"expect"`
}

// Expect is an expected outcome: an answer with its columns and rows as
// canonical text (null as JSON null), a refusal code, or an error.
type Expect struct {
	Outcome string      `json:"outcome"` // answer, refusal or error
	Columns []string    `json:"columns,omitempty"`
	Rows    [][]*string `json:"rows,omitempty"`
	Code    string      `json:"code,omitempty"`
	Error   string      `json:"error,omitempty"`
}

// Cases returns the corpus in file order.
func Cases() ([]Case, error) {
	sub, err := fs.Sub(corpus, "testdata/corpus")
	if err != nil {
		return nil, err
	}
	names, err := fs.Glob(sub, "*.json")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []Case
	for _, n := range names {
		b, err := fs.ReadFile(sub, n)
		if err != nil {
			return nil, err
		}
		var c Case
		if err := json.Unmarshal(b, &c); err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		c.File = path.Base(n)
		out = append(out, c)
	}
	return out, nil
}

// Run answers every case of the corpus through s, an app.Surface over the
// demo bundle and the data system under test, and compares the outcome
// answer for answer, cell for cell (reals to 1e-9 relative), refusal code
// for refusal code. The caller builds s, as only a composition root may
// build the admission bound.
func Run(t *testing.T, s *app.Surface) {
	t.Helper()
	runCorpus(t, func(_ *testing.T, p domain.Principal, q domain.Question) (domain.Outcome, error) {
		return s.Answer(context.Background(), app.Caller{Principal: p}, q)
	})
}

// RunDataSystem asks every case of the corpus of sys at the data-system
// port, with no surface around it: each question is compiled against
// DemoBundle for its principal on Today, the plan is executed on sys, and
// the outcome — the rows, a refusal sys returns or the row cap and byte
// bound of product.md §4.1 it breaks, the zero-denominator failure — is
// compared as Run compares it. sys serves DemoSource over the demo data
// (examples/demo/data) with the models of DemoDefinitions.
func RunDataSystem(t *testing.T, sys app.DataSystem) {
	t.Helper()
	b, err := DemoBundle()
	if err != nil {
		t.Fatal(err)
	}
	runCorpus(t, func(t *testing.T, p domain.Principal, q domain.Question) (domain.Outcome, error) {
		plan, reason := semantic.Compile(b, p, q, Today)
		if reason != nil {
			return domain.Refused(*reason), nil
		}
		rows, err := sys.Execute(context.Background(), plan)
		var re *domain.RefusalError
		switch {
		case errors.As(err, &re):
			return domain.Refused(re.Reason), nil
		case err != nil:
			return domain.Outcome{}, err
		case rows == nil:
			t.Fatal("Execute returned neither rows nor an error")
		case len(rows.Rows) > plan.RowCap, rows.RenderedBytes() > domain.MaxResultBytes:
			return domain.Refused(domain.Refuse(domain.ResultTooLarge, "over the bounds")), nil
		}
		return domain.Answered(&domain.Answer{RowSet: *rows, Provenance: plan.Provenance}), nil
	})
}

// ask answers one question of the corpus for a principal.
type ask func(t *testing.T, p domain.Principal, q domain.Question) (domain.Outcome, error)

func runCorpus(t *testing.T, answer ask) {
	t.Helper()
	cases, err := Cases()
	if err != nil {
		t.Fatalf("conformance: corpus: %v", err)
	}
	if len(cases) == 0 {
		t.Fatal("conformance: the corpus is empty")
	}
	for _, c := range cases {
		t.Run(c.File, func(t *testing.T) { runCase(t, answer, c) })
	}
}

func runCase(t *testing.T, answer ask, c Case) {
	q, err := domain.ParseQuestion(c.Question)
	if err != nil {
		t.Fatalf("the corpus question does not parse: %v", err)
	}
	principal := domain.LocalOperator
	if c.Principal == "anonymous" {
		principal = domain.Principal{Subject: "anonymous"}
	}
	out, err := answer(t, principal, q)
	switch c.Expect.Outcome {
	case "error":
		if c.Expect.Error == "zero_denominator" && !errors.Is(err, domain.ErrZeroDenominator) {
			t.Fatalf("want the zero-denominator failure, got outcome %s, error %v", out.Kind(), err)
		}
		return
	case "refusal":
		if err != nil {
			t.Fatalf("want refusal %s, got error %v", c.Expect.Code, err)
		}
		if out.Refusal == nil {
			t.Fatalf("want refusal %s, got an answer of %d rows", c.Expect.Code, len(out.Answer.Rows))
		}
		if got := string(out.Refusal.Code()); got != c.Expect.Code {
			t.Fatalf("want refusal %s, got %s (%s)", c.Expect.Code, got, out.Refusal.Detail())
		}
		return
	}
	if err != nil {
		t.Fatalf("want an answer, got error %v", err)
	}
	if out.Refusal != nil {
		t.Fatalf("want an answer, got refusal %s: %s", out.Refusal.Code(), out.Refusal.Detail())
	}
	a := out.Answer
	var cols []string
	for _, col := range a.Columns {
		cols = append(cols, col.Name)
	}
	if fmt.Sprint(cols) != fmt.Sprint(c.Expect.Columns) {
		t.Fatalf("columns %v, want %v", cols, c.Expect.Columns)
	}
	if len(a.Rows) != len(c.Expect.Rows) {
		t.Fatalf("%d rows, want %d", len(a.Rows), len(c.Expect.Rows))
	}
	for i, row := range a.Rows {
		for j, cell := range row {
			want := c.Expect.Rows[i][j]
			if !cellEqual(cell, want) {
				w := "null"
				if want != nil {
					w = *want
				}
				t.Fatalf("row %d column %s: %s, want %s", i, cols[j], cell.Render(), w)
			}
		}
	}
}

// cellEqual compares a cell with its expected canonical text; reals may
// differ by 1e-9 relative, since engines sum in different orders.
func cellEqual(c domain.Cell, want *string) bool {
	if want == nil || c.IsNull() {
		return want == nil && c.IsNull()
	}
	got := c.Render()
	if got == *want {
		return true
	}
	if c.Kind() != domain.KindFloat {
		return false
	}
	g, err1 := strconv.ParseFloat(got, 64)
	w, err2 := strconv.ParseFloat(*want, 64)
	if err1 != nil || err2 != nil {
		return false
	}
	return math.Abs(g-w) <= 1e-9*math.Max(math.Abs(g), math.Abs(w))
}
