// Package conformance holds the contract suites of app's driven ports,
// which every adapter runs against itself from its own module's tests
// (docs/architecture.md §1 lets an adapter's tests, never its code, import this
// package and app/apptest).
//
// The data-system suite is a corpus of questions over the demo with
// expected answers computed by an independent engine (DuckDB, from the same
// files; see testdata/README.md): RunSystem asks it of a data system at its
// port, Run through an app.Surface. The same question must give the same
// rows and the same refusals on every data system; only the SQL text
// differs. The catalogue suite (RunCatalog) and the audit-sink suite
// (RunAuditSink) check the other two ports' contracts.
package conformance

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"path"
	"sort"
	"strconv"
	"testing"

	"sutura.dev/app"
	"sutura.dev/domain"
)

//go:embed testdata/corpus
var corpus embed.FS

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
	RunSkipping(t, s, nil)
}

// RunSkipping is Run, except that a case for which notRun returns a reason
// is not asked: it is reported as NOT RUN with its file name and that
// reason. It is for a data system that cannot run some questions (an old
// server version), which must then be named case by case.
func RunSkipping(t *testing.T, s *app.Surface, notRun func(Case) string) {
	t.Helper()
	cases, err := Cases()
	if err != nil {
		t.Fatalf("conformance: corpus: %v", err)
	}
	if len(cases) == 0 {
		t.Fatal("conformance: the corpus is empty")
	}
	for _, c := range cases {
		t.Run(c.File, func(t *testing.T) {
			if notRun == nil {
				runCase(t, s, c)
				return
			}
			if why := notRun(c); why != "" {
				t.Skipf("NOT RUN: conformance case %s (%s)", c.File, why)
			}
			runCase(t, s, c)
		})
	}
}

func runCase(t *testing.T, s *app.Surface, c Case) {
	q, err := domain.ParseQuestion(c.Question)
	if err != nil {
		t.Fatalf("the corpus question does not parse: %v", err)
	}
	out, err := s.Answer(context.Background(), app.Caller{Principal: c.principal()}, q)
	got := outcome{err: err}
	switch {
	case err != nil:
	case out.Refusal != nil:
		got.refusal = out.Refusal
	default:
		got.columns, got.rows = out.Answer.Columns, out.Answer.Rows
	}
	check(t, c, got)
}

// principal is the caller the case asks as.
func (c Case) principal() domain.Principal {
	if c.Principal == "anonymous" {
		return domain.Principal{Subject: "anonymous"}
	}
	return domain.LocalOperator
}

// outcome is what a data system gave for a case: an error, a refusal or
// rows.
type outcome struct {
	err     error
	refusal *domain.Reason
	columns []domain.Column
	rows    [][]domain.Cell
}

func (o outcome) String() string {
	switch {
	case o.err != nil:
		return fmt.Sprintf("error %v", o.err)
	case o.refusal != nil:
		return fmt.Sprintf("refusal %s (%s)", o.refusal.Code(), o.refusal.Detail())
	}
	return fmt.Sprintf("an answer of %d rows", len(o.rows))
}

// failureCode is the code a caller is told for err: a surface's failure
// carries it; a data system's own error is classified as the surface
// classifies an ask_metric's.
func failureCode(err error) app.FailureCode {
	return app.CodeOf(domain.AskMetric, err)
}

// check compares got with the case's expected outcome.
func check(t *testing.T, c Case, got outcome) {
	t.Helper()
	switch c.Expect.Outcome {
	case "error":
		// A failure is compared by its code (the one every transport
		// tells the caller), whatever the code.
		if got.err == nil {
			t.Fatalf("want the failure %s, got %s", c.Expect.Error, got)
		}
		if code := failureCode(got.err); string(code) != c.Expect.Error {
			t.Fatalf("want the failure %s, got %s (%s)", c.Expect.Error, code, got)
		}
		return
	case "refusal":
		if got.refusal == nil || string(got.refusal.Code()) != c.Expect.Code {
			t.Fatalf("want refusal %s, got %s", c.Expect.Code, got)
		}
		return
	}
	if got.err != nil || got.refusal != nil {
		t.Fatalf("want an answer, got %s", got)
	}
	var cols []string
	for _, col := range got.columns {
		cols = append(cols, col.Name)
	}
	if fmt.Sprint(cols) != fmt.Sprint(c.Expect.Columns) {
		t.Fatalf("columns %v, want %v", cols, c.Expect.Columns)
	}
	if len(got.rows) != len(c.Expect.Rows) {
		t.Fatalf("%d rows, want %d", len(got.rows), len(c.Expect.Rows))
	}
	for i, row := range got.rows {
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
