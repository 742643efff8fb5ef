package sqltest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"sutura.dev/adapters/sqlsource"
	"sutura.dev/domain"
)

// Scratch creates a database of t's own with create and drops it with
// drop when t ends, each within a minute; harness names the caller in
// the messages ("pgtest").
func Scratch(t testing.TB, harness, name string, create, drop func(context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := create(ctx); err != nil {
		t.Fatalf("%s: creating %s: %v", harness, name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := drop(ctx); err != nil {
			t.Errorf("%s: dropping %s: %v", harness, name, err)
		}
	})
}

// RunSQL is an adapter's run_sql.
type RunSQL func(ctx context.Context, statement string, rowCap int) (*domain.RowSet, error)

// RejectsBadStatements checks what every SQL adapter's run_sql does with
// a statement the data system rejects and with an empty one: a query with
// a syntax error after its first word (run_sql refuses a statement whose
// first word is not a query's before it is sent) is a *sqlsource.Error
// wrapping domain.ErrRejected whose Code is code and whose Message, for
// the statement's author, quotes the statement while its text does not;
// a blank statement is sqlsource.ErrEmptyStatement.
func RejectsBadStatements(t testing.TB, run RunSQL, code string) {
	t.Helper()
	ctx := context.Background()
	const bad, quoted = "SELECT 1 FROMM nowhere_xyz", "nowhere_xyz"
	_, err := run(ctx, bad, 1)
	var e *sqlsource.Error
	switch {
	case !errors.As(err, &e):
		t.Fatalf("%s: %v, want a *sqlsource.Error", bad, err)
	case !errors.Is(err, domain.ErrRejected):
		t.Errorf("%s: %v does not wrap domain.ErrRejected", bad, err)
	case e.Code != code:
		t.Errorf("%s: code %q, want %q", bad, e.Code, code)
	case !strings.Contains(e.Message, quoted):
		t.Errorf("%s: the message %q does not quote the statement for its author", bad, e.Message)
	case strings.Contains(err.Error(), quoted):
		t.Errorf("%s: the error's text %q quotes the statement", bad, err.Error())
	}
	if _, err := run(ctx, "  \n", 1); !errors.Is(err, sqlsource.ErrEmptyStatement) {
		t.Errorf("a blank statement: %v, want ErrEmptyStatement", err)
	}
}

// Open opens a source with newSource (an adapter's New) and cfg, failing
// t on an error, and closes it when t ends.
func Open[C any, S interface{ Close() }](t testing.TB, newSource func(context.Context, C) (S, error), cfg C) S {
	t.Helper()
	s, err := newSource(context.Background(), cfg)
	if err != nil {
		t.Fatalf("opening the source: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// Execute is an adapter's Execute.
type Execute func(context.Context, *domain.Plan) (*domain.RowSet, error)

// Background runs execute on plan in a goroutine of its own under a
// context of a minute, which cancel ends; done receives its error. t's
// cleanup cancels it, so that a statement of a failed test does not run on
// into the next test.
func Background(t testing.TB, execute Execute, plan *domain.Plan) (done <-chan error, cancel context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	ch := make(chan error, 1)
	go func() {
		_, err := execute(ctx, plan)
		ch <- err
	}()
	return ch, cancel
}

// Returned waits at most within for done, failing t when nothing came,
// and returns the error that did.
func Returned(t testing.TB, done <-chan error, within time.Duration) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(within):
		t.Fatalf("Execute did not return within %v", within)
		return nil
	}
}

// RefusesAtDeadline runs execute on plan under a context whose deadline
// is budget away and checks that it is refused as deadline_exceeded
// within budget+slack.
func RefusesAtDeadline(t testing.TB, execute Execute, plan *domain.Plan, budget, slack time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	start := time.Now()
	_, err := execute(ctx, plan)
	if code := RefusalCode(err); code != domain.DeadlineExceeded {
		t.Fatalf("want deadline_exceeded, got %v", err)
	}
	if took := time.Since(start); took > budget+slack {
		t.Errorf("refused after %v, want within %v", took, budget+slack)
	}
}
