package app_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/domain"
)

const canary = "ZZ-canary-71d0"

func TestArguments(t *testing.T) {
	assert.Equal(t, `{}`, string(app.Arguments(nil)))
	assert.Equal(t, `{"a":1}`, string(app.Arguments(json.RawMessage(`{"a":1}`))))
}

func TestParseDescribeCatalogArgs(t *testing.T) {
	for _, ok := range []string{`{}`, ` { } `, `{"search":"revenue by region"}`, `{"metrics":["revenue","orders"]}`, `{"cursor":"abc"}`,
		`{"search":"` + strings.Repeat("a", app.MaxSearchChars) + `"}`, `{"search":"Umsatz année 收入"}`} {
		_, err := app.ParseDescribeCatalogArgs(json.RawMessage(ok))
		require.NoError(t, err, ok)
	}
	req, err := app.ParseDescribeCatalogArgs(json.RawMessage(`{"search":"churn","cursor":"c"}`))
	require.NoError(t, err)
	assert.Equal(t, app.DescribeRequest{Search: "churn", Cursor: "c"}, req)
	names := make([]string, app.MaxDescribeMetrics+1)
	for i := range names {
		names[i] = `"m` + strings.Repeat("x", i) + `"`
	}
	for args, field := range map[string]string{
		`{"verbose":"` + canary + `"}`:      "verbose",
		`{"` + canary + ` x":1}`:            "(a field whose name is not an identifier)",
		`["` + canary + `"]`:                "",
		`"` + canary + `"`:                  "",
		`{"a":1}{"b":2}`:                    "",
		`{"search":""}`:                     "search",
		`{"search":"` + canary + `\u0007"}`: "search",
		`{"search":"` + canary + `\u200b"}`: "search",
		`{"search":"` + canary + `\u202e"}`: "search",
		`{"search":"` + canary + strings.Repeat("é", app.MaxSearchChars) + `"}`: "search",
		`{"search":"?!"}`:                                        "search",
		`{"search":1}`:                                           "search",
		`{"search":"x","metrics":["a"]}`:                         "search",
		`{"metrics":[]}`:                                         "metrics",
		`{"metrics":"` + canary + `"}`:                           "metrics",
		`{"metrics":[` + strings.Join(names, ",") + `]}`:         "metrics",
		`{"metrics":["a","` + canary + ` x"]}`:                   "metrics[1]",
		`{"metrics":["a","a"]}`:                                  "metrics[1]",
		`{"cursor":""}`:                                          "cursor",
		`{"cursor":"` + canary + strings.Repeat("x", 300) + `"}`: "cursor",
		`{"cursor":7}`:                                           "cursor",
	} {
		_, err := app.ParseDescribeCatalogArgs(json.RawMessage(args))
		var fe *domain.FieldError
		require.ErrorAs(t, err, &fe, args)
		assert.Equal(t, field, fe.Field, args)
		assert.NotContains(t, app.NotAQuestion(err), canary)
		assert.Contains(t, app.NotAQuestion(err), "the arguments are not a question: ")
	}
}

func TestNotAQuestion(t *testing.T) {
	_, err := domain.ParseQuestion([]byte(`{"metrics":["revenue"],"grain":"` + canary + `","range":{"start":"2025-01-01","end":"2025-03-01"}}`))
	require.Error(t, err)
	s := app.NotAQuestion(err)
	assert.Contains(t, s, "grain")
	assert.NotContains(t, s, canary)
	assert.Equal(t, "the arguments are not a question: they could not be read", app.NotAQuestion(errors.New(canary)),
		"an error that is not a field error is replaced by a fixed sentence")
}

func TestParseRunSQLArgs(t *testing.T) {
	st, err := app.ParseRunSQLArgs(json.RawMessage(`{"statement":"select 1\n"}`))
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
		_, err := app.ParseRunSQLArgs(json.RawMessage(args))
		var fe *domain.FieldError
		require.ErrorAs(t, err, &fe, args)
		assert.Equal(t, field, fe.Field, args)
		assert.NotContains(t, app.NotAQuestion(err), canary)
	}
}
