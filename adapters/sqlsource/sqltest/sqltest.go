// Package sqltest is the test harness the SQL data system adapters
// share: the tiers a test needs (a server or a library named by an
// environment variable, skipped with "NOT RUN: <tier> (<why>)" or failed
// when SUTURA_REQUIRE_TIERS lists it), fresh database names, the tables a
// catalogue's CSV files become (their columns and declared types, and
// each dialect's names for the types), certificates for TLS tests, and
// the helpers every adapter's tests compare results with. Each adapter
// keeps only its driver's part (pgtest, chtest, ducktest). It is test
// support: import it from _test files and test harnesses only.
package sqltest

import (
	"context"
	"crypto/rand"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"testing"

	"sutura.dev/domain"
	"sutura.dev/semantic"
	"sutura.dev/testtier"
)

// Tier is a tier of tests (a row of testtier's table, testtier/tiers.tsv)
// whose server or library the environment variable Env names.
type Tier struct {
	// Name is the tier's name in the tier table, SUTURA_REQUIRE_TIERS and
	// NOT RUN.
	Name string
	// Env is the environment variable that names the server or library.
	Env string
}

// Required reports whether SUTURA_REQUIRE_TIERS lists the tier, so that a
// missing server fails instead of skipping.
func (tr Tier) Required() bool { return testtier.Required(tr.Name) }

// Value returns the value of Env; when it is unset, testtier.Need skips t
// with "NOT RUN: <tier> (<Env> unset)", or fails it, saying how to provide
// the tier, when the tier is required.
func (tr Tier) Value(t testing.TB) string {
	t.Helper()
	v := os.Getenv(tr.Env)
	if v == "" {
		testtier.Need(t, tr.Name, tr.Env+" unset")
	}
	return v
}

// Name returns a fresh name for a database of a test: prefix and 12
// random hexadecimal digits.
func Name(prefix string) string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// Column is one column of a table a catalogue's CSV file becomes.
type Column struct {
	Name string
	// Type is the model's declared type; domain.TypeUnset when the model
	// does not declare the column.
	Type domain.ColumnType
}

// File opens the CSV file files holds for m, named after the last segment
// of its table path (<table>.csv, with a header row), as the files source
// finds it.
func File(files fs.FS, m *domain.Model) (fs.File, error) {
	return files.Open(m.BareTable() + ".csv")
}

// Header reads the CSV header from r and returns the columns in the
// file's order with m's declared types.
func Header(r io.Reader, m *domain.Model) ([]Column, error) {
	header, err := csv.NewReader(r).Read()
	if err != nil {
		return nil, fmt.Errorf("the CSV header: %w", err)
	}
	return Declared(header, m), nil
}

// Declared returns the columns named header with m's declared types.
func Declared(header []string, m *domain.Model) []Column {
	cols := make([]Column, len(header))
	for i, name := range header {
		cols[i] = Column{Name: name, Type: domain.TypeUnset}
		if c, ok := m.Column(name); ok {
			cols[i].Type = c.Type
		}
	}
	return cols
}

// TablePath is m's table path without a database segment: t or schema.t.
func TablePath(m *domain.Model) []string {
	parts := m.TableParts()
	if len(parts) > 2 {
		parts = parts[len(parts)-2:]
	}
	return parts
}

// Types are a dialect's names of the declared column types; Text is also
// the type of an undeclared column.
type Types struct {
	Integer, Float, Decimal, Boolean, Date, Timestamp, Text string
}

// Of is the dialect's type of a column declared t.
func (ts Types) Of(t domain.ColumnType) string {
	switch t {
	case domain.TypeInteger:
		return ts.Integer
	case domain.TypeFloat:
		return ts.Float
	case domain.TypeDecimal:
		return ts.Decimal
	case domain.TypeBoolean:
		return ts.Boolean
	case domain.TypeDate:
		return ts.Date
	case domain.TypeTimestamp:
		return ts.Timestamp
	}
	return ts.Text
}

// The demo catalogue's source alias and its CSV files, as a path from an
// adapter's folder (adapters/<name>, where go test runs its tests).
const (
	DemoSource = "demo"
	DemoData   = "../../examples/demo/data"
)

// Today is the date every adapter's tests compile questions on.
var Today = domain.DateOf(2026, 7, 1)

// Compile compiles a wire question against b for principal p on Today,
// failing t when it is refused.
func Compile(t testing.TB, b *domain.Bundle, p domain.Principal, question string) *domain.Plan {
	t.Helper()
	q, err := domain.ParseQuestion([]byte(question))
	if err != nil {
		t.Fatalf("sqltest: the question: %v", err)
	}
	return CompileQuestion(t, b, p, q)
}

// CompileQuestion compiles q against b for principal p on Today, failing
// t when it is refused.
func CompileQuestion(t testing.TB, b *domain.Bundle, p domain.Principal, q domain.Question) *domain.Plan {
	t.Helper()
	plan, why := semantic.Compile(b, p, q, Today)
	if why != nil {
		t.Fatalf("sqltest: the question is refused at compile time: %s", why.Detail())
	}
	return plan
}

// Rendered is a row set as canonical text.
func Rendered(rs *domain.RowSet) [][]string {
	out := [][]string{}
	for _, row := range rs.Rows {
		r := make([]string, len(row))
		for i, c := range row {
			r[i] = c.Render()
		}
		out = append(out, r)
	}
	return out
}

// RefusalCode is the code of the *domain.RefusalError err wraps, or ""
// for any other error.
func RefusalCode(err error) domain.Code {
	var re *domain.RefusalError
	if errors.As(err, &re) {
		return re.Reason.Code()
	}
	return ""
}

// Cols are model columns from name, type pairs.
func Cols(spec ...string) []domain.ModelColumn {
	var out []domain.ModelColumn
	for i := 0; i+1 < len(spec); i += 2 {
		out = append(out, domain.ModelColumn{Name: spec[i], Type: domain.ColumnType(spec[i+1])})
	}
	return out
}

// SlowQuestion asks SlowBundle's metric over one year.
const SlowQuestion = `{"metrics":["slow_total"],"grain":"year","range":{"start":"2025-01-01","end":"2026-01-01"}}`

// SlowBundle is a catalogue of one metric, slow_total, over the table
// slow_orders (order_date date, amount integer) of source: the adapter's
// tests make it a view no test lets finish, to test cancellation.
func SlowBundle(t testing.TB, source string) *domain.Bundle {
	t.Helper()
	defs := domain.Definitions{
		Models: []domain.Model{{Name: "slow_orders", Source: source, Table: "slow_orders",
			Columns: Cols("order_date", "date", "amount", "integer")}},
		Metrics: []domain.Metric{{Name: "slow_total", Model: "slow_orders", TimeColumn: "order_date",
			Measure: &domain.Measure{Simple: &domain.Term{Aggregate: domain.Sum, Column: "amount"}},
			Grains:  []domain.Grain{domain.Year}, Description: "slow"}},
	}
	b, err := domain.NewBundle("slow", defs, domain.Knowledge{})
	if err != nil {
		t.Fatalf("sqltest: %v", err)
	}
	return b
}

// Anchors re-runs every anchor of b with execute, as start-up validation
// does: the metric alone over the anchor's range at its coarsest grain,
// one cell, compared as canonical text. It returns how many anchors ran.
func Anchors(t *testing.T, b *domain.Bundle, execute func(context.Context, *domain.Plan) (*domain.RowSet, error)) int {
	t.Helper()
	n := 0
	for _, m := range b.Definitions().Metrics {
		if m.Anchor == nil {
			continue
		}
		n++
		t.Run(m.Name, func(t *testing.T) {
			q := domain.Question{Metrics: []string{m.Name}, Grain: m.Grains[len(m.Grains)-1],
				Range: domain.TimeSpan{Fixed: &m.Anchor.Range}}
			rs, err := execute(context.Background(), CompileQuestion(t, b, domain.LocalOperator, q))
			switch {
			case err != nil:
				t.Fatalf("anchor of %s: %v", m.Name, err)
			case len(rs.Rows) != 1:
				t.Fatalf("anchor of %s: %d rows, want 1", m.Name, len(rs.Rows))
			case rs.Rows[0][1].Render() != m.Anchor.Value:
				t.Errorf("anchor of %s: %s, want %s", m.Name, rs.Rows[0][1].Render(), m.Anchor.Value)
			}
		})
	}
	return n
}
