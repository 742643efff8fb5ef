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
// a statement the data system rejects and with an empty one: "SELEC 1" is
// a *sqlsource.Error wrapping domain.ErrRejected whose Code is code and
// whose Message, for the statement's author, quotes the statement while
// its text does not; a blank statement is sqlsource.ErrEmptyStatement.
func RejectsBadStatements(t testing.TB, run RunSQL, code string) {
	t.Helper()
	ctx := context.Background()
	_, err := run(ctx, "SELEC 1", 1)
	var e *sqlsource.Error
	switch {
	case !errors.As(err, &e):
		t.Fatalf("SELEC 1: %v, want a *sqlsource.Error", err)
	case !errors.Is(err, domain.ErrRejected):
		t.Errorf("SELEC 1: %v does not wrap domain.ErrRejected", err)
	case e.Code != code:
		t.Errorf("SELEC 1: code %q, want %q", e.Code, code)
	case !strings.Contains(e.Message, "SELEC"):
		t.Errorf("SELEC 1: the message %q does not quote the statement for its author", e.Message)
	case strings.Contains(err.Error(), "SELEC"):
		t.Errorf("SELEC 1: the error's text %q quotes the statement", err.Error())
	}
	if _, err := run(ctx, "  \n", 1); !errors.Is(err, sqlsource.ErrEmptyStatement) {
		t.Errorf("a blank statement: %v, want ErrEmptyStatement", err)
	}
}
