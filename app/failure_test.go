package app_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sutura.dev/app"
	"sutura.dev/domain"
)

// failing is a data system whose every execution fails with err, as it is
// (apptest's fakes type an untyped error as an adapter would).
type failing struct{ err error }

func (f failing) Execute(context.Context, *domain.Plan) (*domain.RowSet, error) { return nil, f.err }

// TestDataSystemErrorsMapByKind: the failure table alone maps an error of
// a data system to a code, by the error kind of package domain it wraps;
// an error wrapping no kind is internal, never unavailable.
func TestDataSystemErrorsMapByKind(t *testing.T) {
	q := `{"metrics":["revenue"],"grain":"month","range":{"start":"2025-01-01","end":"2025-03-01"}}`
	for _, tc := range []struct {
		name string
		err  error
		want app.FailureCode
	}{
		{"unavailable", fmt.Errorf("source s: %w", domain.ErrUnavailable), app.CodeUnavailable},
		{"a rejected certified statement is not the caller's", fmt.Errorf("source s: %w", domain.ErrRejected), app.CodeUnavailable},
		{"zero denominator", fmt.Errorf("metric m: %w", domain.ErrZeroDenominator), app.CodeZeroDenominator},
		{"defect", fmt.Errorf("%w: a worker panicked", domain.ErrDefect), app.CodeInternal},
		{"unrecognised", errors.New("something nobody typed"), app.CodeInternal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, audit, _ := newSurface(t, failing{tc.err}, 1, 5*time.Second)
			_, err := s.Answer(context.Background(), anon, question(t, q))
			var f *app.Failure
			require.ErrorAs(t, err, &f)
			assert.Equal(t, tc.want, f.Code)
			assert.Equal(t, string(tc.want), audit.Records()[0].Code)
			assert.Equal(t, tc.want, app.CodeOf(domain.AskMetric, tc.err))
		})
	}
}

// TestRejectedStatementIsTheAuthorsOnlyInRunSQL: the same error kind is
// statement_failed for run_sql, whose caller wrote the statement.
func TestRejectedStatementIsTheAuthorsOnlyInRunSQL(t *testing.T) {
	err := fmt.Errorf("source s: %w", domain.ErrRejected)
	assert.Equal(t, app.CodeStatementFailed, app.CodeOf(domain.RunSQL, err))
	assert.Equal(t, app.CodeUnavailable, app.CodeOf(domain.AskMetric, err))
	assert.Equal(t, app.CodeInternal, app.CodeOf(domain.RunSQL, errors.New("untyped")))
}
