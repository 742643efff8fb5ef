package explain

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"sutura.dev/domain"
)

type tells struct{ err error }

func (t tells) Statement(context.Context, *domain.Plan) (domain.Statement, error) {
	return domain.Statement{Text: "SELECT 1"}, t.err
}

type tellsAs struct{ tells }

func (t tellsAs) StatementAs(_ context.Context, p domain.Principal, _ *domain.Plan) (domain.Statement, error) {
	return domain.Statement{Text: "EXECUTE AS " + p.Subject + " SELECT 1"}, t.err
}

func TestStatementOf(t *testing.T) {
	ana := domain.Principal{Subject: "ana"}
	for name, tc := range map[string]struct {
		sys          any
		impersonated bool
		want         string
		ok           bool
	}{
		"a teller":                          {tells{}, false, "SELECT 1", true},
		"a teller under impersonation":      {tells{}, true, "SELECT 1", true},
		"a principal teller as the service": {tellsAs{}, false, "SELECT 1", true},
		"a principal teller as the caller":  {tellsAs{}, true, "EXECUTE AS ana SELECT 1", true},
		"a teller that cannot tell":         {tellsAs{tells{errors.New("no")}}, true, "", false},
		"no teller":                         {struct{}{}, false, "", false},
	} {
		t.Run(name, func(t *testing.T) {
			st, ok := StatementOf(context.Background(), tc.sys, nil, ana, tc.impersonated)
			assert.Equal(t, tc.ok, ok)
			if ok {
				assert.Equal(t, tc.want, st.Text)
			}
		})
	}
}
