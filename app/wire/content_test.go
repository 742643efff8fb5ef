package wire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/domain"
)

const canary = "ZZ-canary-71d0"

func TestOutcomeContentIsTheOutcomesWireBody(t *testing.T) {
	for name, out := range map[string]domain.Outcome{
		"answer": domain.Answered(&domain.Answer{
			RowSet:     domain.RowSet{Columns: []domain.Column{{Name: "period", Role: domain.RolePeriod}}, Rows: [][]domain.Cell{{domain.DateCell(domain.DateOf(2025, 1, 1))}}},
			Provenance: domain.Provenance{DefinitionVersion: "v1", DefinitionDigest: "d"},
		}),
		"refusal": domain.Refused(domain.Refuse(domain.GrainNotSupported, "metric revenue does not declare grain day")),
	} {
		t.Run(name, func(t *testing.T) {
			got, err := OutcomeContent(out)
			require.NoError(t, err)
			want, err := out.MarshalJSON()
			require.NoError(t, err)
			assert.Equal(t, string(want), string(got))
			assert.True(t, json.Valid(got))
		})
	}
	_, err := OutcomeContent(domain.Outcome{})
	require.Error(t, err, "an outcome holds an answer or a refusal")
}

func TestCatalogContent(t *testing.T) {
	v := app.CatalogView{DefinitionVersion: "v1", Metrics: []app.MetricView{}}
	got, err := CatalogContent(v)
	require.NoError(t, err)
	want, err := json.Marshal(v)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))
}

func TestArguments(t *testing.T) {
	assert.Equal(t, `{}`, string(Arguments(nil)))
	assert.Equal(t, `{"a":1}`, string(Arguments(json.RawMessage(`{"a":1}`))))
}

func TestParseDescribeCatalogArgs(t *testing.T) {
	require.NoError(t, ParseDescribeCatalogArgs(json.RawMessage(`{}`)))
	require.NoError(t, ParseDescribeCatalogArgs(json.RawMessage(` { } `)))
	for args, field := range map[string]string{
		`{"verbose":"` + canary + `"}`: "verbose",
		`{"` + canary + ` x":1}`:       "(a field whose name is not an identifier)",
		`["` + canary + `"]`:           "",
		`"` + canary + `"`:             "",
		`{"a":1}{"b":2}`:               "",
	} {
		err := ParseDescribeCatalogArgs(json.RawMessage(args))
		var fe *domain.FieldError
		require.ErrorAs(t, err, &fe, args)
		assert.Equal(t, field, fe.Field)
		assert.NotContains(t, NotAQuestion(err), canary)
		assert.Contains(t, NotAQuestion(err), "the arguments are not a question: ")
	}
}

func TestNotAQuestion(t *testing.T) {
	_, err := domain.ParseQuestion([]byte(`{"metrics":["revenue"],"grain":"` + canary + `","range":{"start":"2025-01-01","end":"2025-03-01"}}`))
	require.Error(t, err)
	s := NotAQuestion(err)
	assert.Contains(t, s, "grain")
	assert.NotContains(t, s, canary)
	assert.Equal(t, "the arguments are not a question: they could not be read", NotAQuestion(errors.New(canary)),
		"an error that is not a field error is replaced by a fixed sentence")
}

func TestFailureOf(t *testing.T) {
	for _, tc := range []struct {
		err      error
		code     string
		text     string
		sentinel error
		report   bool
	}{
		{app.ErrAtCapacity, CodeAtCapacity, TextAtCapacity, app.ErrAtCapacity, false},
		{app.ErrTimeout, CodeTimeout, TextTimeout, app.ErrTimeout, false},
		{context.DeadlineExceeded, CodeTimeout, TextTimeout, app.ErrTimeout, false},
		{fmt.Errorf("metric r: %w", domain.ErrZeroDenominator), CodeZeroDenominator, TextZeroDenominator, domain.ErrZeroDenominator, false},
		{fmt.Errorf("%w: pq: %s", app.ErrUnavailable, canary), CodeUnavailable, TextUnavailable, app.ErrUnavailable, true},
		{app.ErrInternal, CodeInternal, TextInternal, app.ErrInternal, true},
		{fmt.Errorf("%w: %w", app.ErrStatementFailed, errors.New(canary)), CodeStatementFailed, TextStatementFailed, app.ErrStatementFailed, false},
		{fmt.Errorf("%w: none", app.ErrSQLNotAvailable), CodeUnavailable, TextSQLUnavailable, app.ErrSQLNotAvailable, true},
		{errors.New(canary), CodeInternal, TextInternal, app.ErrInternal, true},
	} {
		f, ok := FailureOf(tc.err)
		require.True(t, ok)
		assert.Equal(t, Failure{tc.code, tc.text, tc.sentinel, tc.report}, f)
		assert.NotContains(t, f.Text, canary)
	}
	_, ok := FailureOf(fmt.Errorf("wrapped: %w", context.Canceled))
	assert.False(t, ok, "a caller that went away is told nothing")
}

func TestParseRunSQLArgs(t *testing.T) {
	st, err := ParseRunSQLArgs(json.RawMessage(`{"statement":"select 1\n"}`))
	require.NoError(t, err)
	assert.Equal(t, "select 1\n", st)
	long, _ := json.Marshal(map[string]string{"statement": strings.Repeat("x", app.MaxStatementBytes+1)})
	for args, field := range map[string]string{
		`{"statement":"select 1","sql":"` + canary + `"}`: "sql",
		`{"` + canary + ` x":1}`:                          "(a field whose name is not an identifier)",
		`{}`:                                              "statement",
		`{"statement":""}`:                                "statement",
		`{"statement":" \t"}`:                             "statement",
		`{"statement":null}`:                              "statement",
		`{"statement":"a","statement":"b"}`:               "statement",
		`["` + canary + `"]`:                              "",
		`{"statement":"a"}{"b":2}`:                        "",
		string(long):                                      "statement",
	} {
		_, err := ParseRunSQLArgs(json.RawMessage(args))
		var fe *domain.FieldError
		require.ErrorAs(t, err, &fe, args)
		assert.Equal(t, field, fe.Field, args)
		assert.NotContains(t, NotAQuestion(err), canary)
	}
}

func TestSQLContent(t *testing.T) {
	got, err := SQLContent(app.SQLOutcome{Rows: &domain.RowSet{Columns: []domain.Column{{Name: "n", Role: domain.RoleMetric}},
		Rows: [][]domain.Cell{{domain.Int(1)}, {domain.Null()}}}})
	require.NoError(t, err)
	assert.Equal(t, `{"outcome":"answer","columns":[{"name":"n"}],"rows":[["1"],[null]]}`, string(got))
	got, err = SQLContent(app.SQLOutcome{Rows: &domain.RowSet{}})
	require.NoError(t, err)
	assert.Equal(t, `{"outcome":"answer","columns":[],"rows":[]}`, string(got))
	r := domain.Refuse(domain.ResultTooLarge, "too many rows")
	got, err = SQLContent(app.SQLOutcome{Refusal: &r})
	require.NoError(t, err)
	want, err := domain.Refused(r).MarshalJSON()
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))
	_, err = SQLContent(app.SQLOutcome{})
	require.Error(t, err)
}
