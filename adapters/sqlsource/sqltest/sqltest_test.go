package sqltest_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sutura.dev/adapters/sqlsource"
	"sutura.dev/adapters/sqlsource/sqltest"
	"sutura.dev/domain"
)

func TestTypesAndColumns(t *testing.T) {
	ts := sqltest.Types{Integer: "i", Float: "f", Decimal: "d", Boolean: "b", Date: "dt", Timestamp: "ts", Text: "t"}
	for typ, want := range map[domain.ColumnType]string{domain.TypeInteger: "i", domain.TypeFloat: "f", domain.TypeDecimal: "d",
		domain.TypeBoolean: "b", domain.TypeDate: "dt", domain.TypeTimestamp: "ts", domain.TypeText: "t", domain.TypeUnset: "t"} {
		assert.Equal(t, want, ts.Of(typ), typ)
	}
	m := &domain.Model{Name: "orders", Table: "db.sales.orders", Columns: sqltest.Cols("id", "integer", "day", "date")}
	assert.Equal(t, []string{"sales", "orders"}, sqltest.TablePath(m))
	cols, err := sqltest.Header(strings.NewReader("id,note,day\n1,x,2025-01-01\n"), m)
	require.NoError(t, err)
	assert.Equal(t, []sqltest.Column{{Name: "id", Type: domain.TypeInteger}, {Name: "note", Type: domain.TypeUnset},
		{Name: "day", Type: domain.TypeDate}}, cols)
	_, err = sqltest.Header(strings.NewReader(""), m)
	assert.Error(t, err)
	assert.Len(t, sqltest.Name("p_"), len("p_")+12)
	assert.NotEqual(t, sqltest.Name("p_"), sqltest.Name("p_"))
}

// recorder is a testing.TB that records a skip or a failure instead of
// ending the test, so the test of a tier prints no NOT RUN line of its own
// (scripts/test would count it as a tier that did not run).
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper()                           {}
func (r *recorder) Skipf(format string, args ...any)  { r.skipped = fmt.Sprintf(format, args...) }
func (r *recorder) Fatalf(format string, args ...any) { r.failed = fmt.Sprintf(format, args...) }

func TestTierSkipsWithoutItsVariable(t *testing.T) {
	tier := sqltest.Tier{Name: "postgres", Env: "SUTURA_SQLTEST_UNSET"}
	t.Setenv("SUTURA_SQLTEST_UNSET", "")
	t.Setenv("SUTURA_REQUIRE_TIERS", "node, other")
	assert.False(t, tier.Required())
	r := &recorder{TB: t}
	assert.Empty(t, tier.Value(r))
	assert.Equal(t, "NOT RUN: postgres (SUTURA_SQLTEST_UNSET unset)", r.skipped)
	assert.Empty(t, r.failed)

	t.Setenv("SUTURA_REQUIRE_TIERS", "a,postgres")
	assert.True(t, tier.Required())
	r = &recorder{TB: t}
	tier.Value(r)
	assert.Contains(t, r.failed, "postgres is a required tier")
	assert.Empty(t, r.skipped)

	t.Setenv("SUTURA_SQLTEST_UNSET", "v")
	assert.Equal(t, "v", tier.Value(t))
}

func TestHelpers(t *testing.T) {
	rs := &domain.RowSet{Rows: [][]domain.Cell{{domain.Int(1), domain.Null()}}}
	assert.Equal(t, [][]string{{"1", "null"}}, sqltest.Rendered(rs))
	assert.Equal(t, domain.SourceRefused, sqltest.RefusalCode(sqlsource.Refusal(domain.SourceRefused, "no")))
	assert.Empty(t, sqltest.RefusalCode(errors.New("other")))
	b := sqltest.SlowBundle(t, "s")
	plan := sqltest.Compile(t, b, domain.LocalOperator, sqltest.SlowQuestion)
	assert.Equal(t, "s", plan.Legs[0].Source)
}

func TestRejectsBadStatements(t *testing.T) {
	good := func(_ context.Context, statement string, rowCap int) (*domain.RowSet, error) {
		if _, err := sqlsource.Statement(statement, rowCap); err != nil {
			return nil, err
		}
		return nil, &sqlsource.Error{System: "x", Source: "s", Kind: domain.ErrRejected, Code: "1",
			Sentence: "the statement failed (code 1)", Message: "syntax error at " + statement}
	}
	sqltest.RejectsBadStatements(t, good, "1")
}
