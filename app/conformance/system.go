package conformance

import (
	"context"
	"errors"
	"testing"
	"time"

	"sutura.dev/app"
	"sutura.dev/domain"
	"sutura.dev/semantic"
)

// Today is the date the corpus is compiled on: its questions name fixed
// ranges, and none depends on it.
var Today = domain.DateOf(2026, 7, 1)

// RunSystem runs the corpus on sys, a data system holding the demo tables
// on source (each model's table named as in DemoDefinitions), from the
// system's own module: each question is compiled against
// DemoBundle(source), as the application compiles it, and its plan is
// executed by sys.Execute, the data-system port itself. Answers are
// compared cell for cell (reals to 1e-9 relative), refusals by code, and
// failures by the code the surface would give them (a failing ratio must
// wrap domain.ErrZeroDenominator).
func RunSystem(t *testing.T, sys app.DataSystem, source string) {
	t.Helper()
	cases, err := Cases()
	if err != nil {
		t.Fatalf("conformance: corpus: %v", err)
	}
	if len(cases) == 0 {
		t.Fatal("conformance: the corpus is empty")
	}
	b, err := DemoBundle(source)
	if err != nil {
		t.Fatalf("conformance: the demo mirror: %v", err)
	}
	for _, c := range cases {
		t.Run(c.File, func(t *testing.T) {
			q, err := domain.ParseQuestion(c.Question)
			if err != nil {
				t.Fatalf("the corpus question does not parse: %v", err)
			}
			plan, why := semantic.Compile(b, c.principal(), q, Today)
			if why != nil {
				check(t, c, outcome{refusal: why})
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			rs, err := sys.Execute(ctx, plan)
			var re *domain.RefusalError
			switch {
			case errors.As(err, &re):
				check(t, c, outcome{refusal: &re.Reason})
			case err != nil:
				check(t, c, outcome{err: err})
			default:
				check(t, c, outcome{columns: rs.Columns, rows: rs.Rows})
			}
		})
	}
}
