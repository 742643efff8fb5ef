package inproc

import (
	"context"
	"encoding/json"

	"sutura.dev/app"
	"sutura.dev/app/wire"
	"sutura.dev/domain"
)

// Invoke calls tool with args (a JSON object; empty means {}) and returns
// its structured content: byte for byte what the MCP surface returns for
// the same call (package wire renders both). An answer and a refusal are
// content with a nil error. The error is one of the typed errors of this
// package (see the package documentation) or ctx's error when ctx was
// cancelled; ctx's deadline, if earlier than the request timeout, bounds
// the call.
func (c *Connection) Invoke(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, error) {
	res, err := c.call(ctx, tool, args)
	if err != nil {
		return nil, err
	}
	return res.content()
}

// InvokeWithCost is Invoke, also returning the realized cost of the call
// (domain.Cost): the rows scanned and bytes read that the data system
// measured, the rows returned, the execution time and the sources read.
// describe_catalog reads no data system; its cost is zero, and measured.
func (c *Connection) InvokeWithCost(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, domain.Cost, error) {
	res, err := c.call(ctx, tool, args)
	if err != nil {
		return nil, domain.Cost{}, err
	}
	content, err := res.content()
	if err != nil {
		return nil, domain.Cost{}, err
	}
	return content, res.cost, nil
}

// result is what one call produced, before rendering.
type result struct {
	outcome *domain.Outcome  // ask_metric
	catalog *app.CatalogView // describe_catalog
	sql     *app.SQLOutcome  // run_sql
	cost    domain.Cost
}

func (r result) content() (json.RawMessage, error) {
	var (
		b   json.RawMessage
		err error
	)
	switch {
	case r.catalog != nil:
		b, err = wire.CatalogContent(*r.catalog)
	case r.sql != nil:
		b, err = wire.SQLContent(*r.sql)
	default:
		b, err = wire.OutcomeContent(*r.outcome)
	}
	if err != nil {
		f, _ := wire.FailureOf(app.ErrInternal)
		return nil, newFailureError(f)
	}
	return b, nil
}

// call resolves the tool and the caller, parses the arguments and runs the
// tool on the surface, as the MCP handler does.
func (c *Connection) call(ctx context.Context, name string, args json.RawMessage) (result, error) {
	t, ok := c.tools[domain.Capability(name)]
	if !ok {
		if domain.CheckIdent(name) != nil {
			name = "(a name that is not an identifier)"
		}
		return result{}, &UnknownToolError{Tool: name}
	}
	if err := ctx.Err(); err != nil {
		return result{}, err
	}
	caller := c.caller(ctx)
	if c.cfg.EnforceScopes && !t.Grants(caller.Principal.Scopes) {
		return result{}, &NotGrantedError{Tool: t.ID, Scope: t.Scope}
	}
	args = wire.Arguments(args)
	switch t.ID {
	case domain.DescribeCatalog:
		if err := wire.ParseDescribeCatalogArgs(args); err != nil {
			return result{}, newArgumentError(t.ID, err)
		}
		v := c.surface.DescribeCatalog(caller)
		return result{catalog: &v, cost: domain.Cost{Sources: []string{}, Measured: true}}, nil
	case domain.AskMetric:
		return c.ask(ctx, caller, args)
	case domain.RunSQL:
		return c.runSQL(ctx, caller, args)
	}
	// New accepts only tools that wire declares, and each has a case above.
	f, _ := wire.FailureOf(app.ErrInternal)
	return result{}, newFailureError(f)
}

// ask answers ask_metric under the request timeout, admission included.
func (c *Connection) ask(ctx context.Context, caller app.Caller, args json.RawMessage) (result, error) {
	q, err := domain.ParseQuestion(args)
	if err != nil {
		return result{}, newArgumentError(domain.AskMetric, err)
	}
	ctx, cancel := context.WithTimeout(ctx, c.surface.RequestTimeout())
	defer cancel()
	out, cost, err := c.surface.AnswerWithCost(ctx, caller, q)
	if err != nil {
		f, ok := wire.FailureOf(err)
		if !ok {
			return result{}, err
		}
		if f.Report {
			c.log.Error("inproc: ask_metric failed", "correlation_id", caller.CorrelationID, "error", err)
		}
		return result{}, newFailureError(f)
	}
	return result{outcome: &out, cost: cost}, nil
}

// runSQL answers run_sql under the request timeout, admission included.
// Its cost holds only the rows returned: a statement is not measured. The
// statement is never logged nor echoed: it is in the audit record only.
func (c *Connection) runSQL(ctx context.Context, caller app.Caller, args json.RawMessage) (result, error) {
	statement, err := wire.ParseRunSQLArgs(args)
	if err != nil {
		return result{}, newArgumentError(domain.RunSQL, err)
	}
	ctx, cancel := context.WithTimeout(ctx, c.surface.RequestTimeout())
	defer cancel()
	out, err := c.surface.RunSQL(ctx, caller, statement)
	if err != nil {
		f, ok := wire.FailureOf(err)
		if !ok {
			return result{}, err
		}
		if f.Report {
			c.log.Error("inproc: run_sql failed", "correlation_id", caller.CorrelationID, "error", err)
		}
		return result{}, newFailureError(f)
	}
	cost := domain.Cost{Sources: []string{}}
	if out.Rows != nil {
		cost.RowsReturned = len(out.Rows.Rows)
	}
	return result{sql: &out, cost: cost}, nil
}
