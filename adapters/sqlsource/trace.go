package sqlsource

import (
	"context"
	"fmt"
	"strings"

	"sutura.dev/domain"
	"sutura.dev/semantic"
)

// TraceComment is the trailing comment every statement sent to a database
// ends with (docs/contract.md §16), so that the database's own query log
// (PostgreSQL's log_statement and pg_stat_activity, ClickHouse's
// system.query_log) links back to the call's trace: " /* traceparent='…'
// */" with the traceparent ctx carries (domain.WithTraceParent), or ""
// when it carries none. Only a value of the strict W3C form
// (domain.ValidTraceParent: hex digits and dashes) is ever written, so
// nothing a caller sent reaches the SQL text through it.
func TraceComment(ctx context.Context) string {
	tp := domain.TraceParent(ctx)
	if !domain.ValidTraceParent(tp) {
		return ""
	}
	return " /* traceparent='" + tp + "' */"
}

// Traced is a run_sql statement as it is sent to a database under ctx
// (docs/contract.md §16): statement without its trailing white space and
// semicolons, then a new line (which ends a trailing -- comment) and the
// traceparent comment; statement unchanged when ctx carries no
// traceparent. An adapter checks the text it sends, so the comment is
// inside everything its guard and the server's parser see.
func Traced(ctx context.Context, statement string) string {
	c := TraceComment(ctx)
	if c == "" {
		return statement
	}
	return strings.TrimRight(statement, " \t\r\n\f\v;") + "\n" + c[1:]
}

// ExplainStatement is the statement Render sends for plan under ctx, as an
// explanation shows it (domain.Statement): the dialect, the text with its
// traceparent comment, and the bound values as text, in order.
func ExplainStatement(ctx context.Context, system, source string, plan *domain.Plan, dialect semantic.Dialect) (domain.Statement, error) {
	if err := Leg(system, source, plan); err != nil {
		return domain.Statement{}, err
	}
	st, err := semantic.Render(plan, dialect)
	if err != nil {
		return domain.Statement{}, fmt.Errorf("%s source %s: %w", system, source, err)
	}
	return Explained(ctx, source, string(dialect), st), nil
}

// Explained is st as an explanation shows it, with the traceparent
// comment ctx gives it.
func Explained(ctx context.Context, source, dialect string, st semantic.Statement) domain.Statement {
	out := domain.Statement{Source: source, Dialect: dialect, Text: st.SQL + TraceComment(ctx), Params: make([]string, len(st.Params))}
	for i, p := range st.Params {
		out.Params[i] = p.Value
	}
	return out
}

// Name is the identity a leg of principal runs as, for an explanation
// (docs/contract.md §16): under impersonation the identity principal maps
// to, else (or when principal maps to the service user) serviceUser, the
// user the connection signs in as; "" when principal has no identity.
func (id *Identities) Name(principal domain.Principal, impersonated bool, serviceUser string) string {
	if !impersonated {
		return serviceUser
	}
	who, err := id.Of(principal)
	if err != nil {
		return ""
	}
	if who == "" {
		return serviceUser
	}
	return who
}

// ServedModel is the model of models named name, or nil when this source
// does not serve it: what a data_through query is asked of
// (docs/contract.md §16).
func ServedModel(models []domain.Model, name string) *domain.Model {
	for i := range models {
		if models[i].Name == name {
			return &models[i]
		}
	}
	return nil
}
