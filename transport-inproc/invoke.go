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
	return content(res)
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
	b, err := content(res)
	if err != nil {
		return nil, domain.Cost{}, err
	}
	return b, res.Cost, nil
}

// call decodes one invocation into the surface's one call (the caller, the
// tool, the arguments) and translates a failure into this package's typed
// errors.
func (c *Connection) call(ctx context.Context, name string, args json.RawMessage) (app.Result, error) {
	res := c.surface.Call(ctx, c.caller(ctx), domain.Capability(name), args)
	if f := res.Failure; f != nil {
		return res, c.failure(ctx, name, f)
	}
	return res, nil
}

// failure is the typed error of a failure (see the package documentation).
func (c *Connection) failure(ctx context.Context, name string, f *app.Failure) error {
	switch f.Code {
	case app.CodeToolNotEnabled:
		return unknownTool(name)
	case app.CodeInsufficientScope:
		t := c.tools[domain.Capability(name)]
		return &NotGrantedError{Tool: t.ID, Scope: t.Scope}
	case app.CodeNotAQuestion:
		return &ArgumentError{Tool: domain.Capability(name), Field: f.Field, failure: f}
	case app.CodeCancelled:
		if err := ctx.Err(); err != nil {
			return err
		}
		return context.Canceled
	}
	return newFailureError(f)
}

// unknownTool names the tool when it is an identifier: a name is caller
// text too.
func unknownTool(name string) *UnknownToolError {
	if domain.CheckIdent(name) != nil {
		name = "(a name that is not an identifier)"
	}
	return &UnknownToolError{Tool: name}
}

// content is the structured content of a result that is not a failure.
func content(res app.Result) (json.RawMessage, error) {
	b, err := wire.Content(res)
	if err != nil {
		return nil, newFailureError(&app.Failure{Code: app.CodeInternal, Detail: app.TextInternal})
	}
	return b, nil
}
