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
	require.NoError(t, app.ParseDescribeCatalogArgs(json.RawMessage(`{}`)))
	require.NoError(t, app.ParseDescribeCatalogArgs(json.RawMessage(` { } `)))
	for args, field := range map[string]string{
		`{"verbose":"` + canary + `"}`: "verbose",
		`{"` + canary + ` x":1}`:       "(a field whose name is not an identifier)",
		`["` + canary + `"]`:           "",
		`"` + canary + `"`:             "",
		`{"a":1}{"b":2}`:               "",
	} {
		err := app.ParseDescribeCatalogArgs(json.RawMessage(args))
		var fe *domain.FieldError
		require.ErrorAs(t, err, &fe, args)
		assert.Equal(t, field, fe.Field)
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
