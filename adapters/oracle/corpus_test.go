package oracle_test

import (
	"context"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sutura.dev/adapters/sqlsource"
	"sutura.dev/adapters/sqlsource/sqltest"
	"sutura.dev/app/conformance"
	"sutura.dev/domain"
	"sutura.dev/semantic"
)

// TestCorpusBindsByOccurrence renders every question of the contract
// corpus that compiles for oracle, as the adapter does, and checks what
// go-ora will bind: the placeholders are :1 to :n, each once and in order
// (Oracle binds positionally by occurrence), with exactly n arguments,
// each a date at midnight UTC or text. Whether Oracle computes the
// corpus's answers is the oracle tier's (live_test.go).
func TestCorpusBindsByOccurrence(t *testing.T) {
	cases, err := conformance.Cases()
	require.NoError(t, err)
	b := demoBundle(t)
	placeholder := regexp.MustCompile(`:(\d+)`)
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
		ran++
		query, args, err := sqlsource.Render(context.Background(), "oracle", source, plan, semantic.Oracle)
		require.NoError(t, err, c.File)
		seen := placeholder.FindAllStringSubmatch(query, -1)
		require.Len(t, seen, len(args), c.File)
		for i, m := range seen {
			assert.Equal(t, strconv.Itoa(i+1), m[1], "%s: placeholder %d", c.File, i+1)
		}
		for _, a := range args {
			switch v := a.(type) {
			case time.Time:
				assert.Equal(t, time.UTC, v.Location(), c.File)
			case string:
			default:
				t.Errorf("%s: an argument of type %T", c.File, a)
			}
		}
	}
	assert.Greater(t, ran, 20, "the corpus's questions that compile")
}
