package explain

import (
	"context"

	"sutura.dev/domain"
)

// StatementTeller is the optional ability of a data system to tell the
// statement it sends for plan under ctx (its dialect, its text with the
// traceparent comment ctx's span gives it, its bound parameters), shown
// only to a caller holding domain.ScopeSQLRead.
type StatementTeller interface {
	Statement(ctx context.Context, plan *domain.Plan) (domain.Statement, error)
}

// PrincipalStatementTeller is the optional ability of a data system whose
// statement under impersonation-at-source differs from the service user's
// (ClickHouse's EXECUTE AS <user> prefix) to tell the one it sends for
// plan as principal.
type PrincipalStatementTeller interface {
	StatementAs(ctx context.Context, principal domain.Principal, plan *domain.Plan) (domain.Statement, error)
}

// StatementOf is the statement sys sends for plan under ctx, run as
// principal when impersonated: ok is false when sys cannot tell it.
func StatementOf(ctx context.Context, sys any, plan *domain.Plan, principal domain.Principal, impersonated bool) (domain.Statement, bool) {
	if t, yes := sys.(PrincipalStatementTeller); yes && impersonated {
		st, err := t.StatementAs(ctx, principal, plan)
		return st, err == nil
	}
	if t, yes := sys.(StatementTeller); yes {
		st, err := t.Statement(ctx, plan)
		return st, err == nil
	}
	return domain.Statement{}, false
}
