package bigquery_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sutura.dev/adapters/bigquery/bqtest"
	"sutura.dev/adapters/sqlsource/sqltest"
	"sutura.dev/app/conformance"
	"sutura.dev/domain"
	"sutura.dev/semantic"
)

// TestCorpusJobsAreWellFormed sends the job of every question of the
// contract corpus that compiles through the real client library to the
// double (which answers each with its columns and no rows, as it
// evaluates nothing): the
// job is accepted, and every @pN the statement names travels as a named
// parameter of the type its value needs, no other parameter travels, and
// every job carries maximum_bytes_billed and a timeout. Whether BigQuery
// computes the corpus's answers is the bigquery tier's (live_test.go).
func TestCorpusJobsAreWellFormed(t *testing.T) {
	cases, err := conformance.Cases()
	require.NoError(t, err)
	b := demoBundle(t)
	placeholder := regexp.MustCompile(`@(p\d+)`)
	ran := 0
	for _, c := range cases {
		q, err := domain.ParseQuestion(c.Question)
		if err != nil {
			continue
		}
		p := domain.LocalOperator
		if c.Principal == "anonymous" {
			p = domain.Principal{Subject: "anonymous"}
		}
		plan, why := semantic.Compile(b, p, q, sqltest.Today)
		if why != nil {
			continue
		}
		t.Run(c.File, func(t *testing.T) {
			d := bqtest.Start(t)
			var schema []bqtest.Field
			for _, col := range plan.Columns {
				schema = append(schema, bqtest.Field{Name: col.Name, Type: "STRING"})
			}
			d.Answer(bqtest.Answer{Schema: schema})
			rs, err := open(t, config(d)).Execute(context.Background(), plan)
			require.NoError(t, err)
			assert.Empty(t, rs.Rows)
			jobs := d.Jobs()
			require.Len(t, jobs, 1)
			j := jobs[0]
			named := map[string]bool{}
			for _, m := range placeholder.FindAllStringSubmatch(j.Query, -1) {
				named[m[1]] = true
			}
			assert.Len(t, j.Params, len(named), "one parameter per name the statement uses")
			for name, v := range j.Params {
				assert.True(t, named[name], "parameter %s is not in the statement", name)
				assert.True(t, strings.HasPrefix(v, "DATE ") || strings.HasPrefix(v, "STRING "), "%s is %s", name, v)
			}
			assert.Positive(t, j.MaximumBytesBilled)
			assert.Positive(t, j.JobTimeoutMs)
		})
		ran++
	}
	assert.Greater(t, ran, 20, "the corpus's questions that compile")
}
