package mcpserver

import (
	"context"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"sutura.dev/app"
	"sutura.dev/app/wire"
	"sutura.dev/domain"
)

// The fixed sentences of the failure channels (docs/contract.md §5), the
// surface's, shared by every transport.
const (
	TextAtCapacity      = app.TextAtCapacity
	TextTimeout         = app.TextTimeout
	TextUnavailable     = app.TextUnavailable
	TextInternal        = app.TextInternal
	TextZeroDenominator = app.TextZeroDenominator
	TextStatementFailed = app.TextStatementFailed
)

// encode renders the surface's result as a tool result: structuredContent
// is its wire content (wire.Content, byte for byte what every transport
// returns) and one text block carries the same for a reader. A failure
// goes to its channel (failure).
func encode(res app.Result) (*mcp.CallToolResult, error) {
	if res.Failure != nil {
		return failure(res.Failure)
	}
	body, err := wire.Content(res)
	if err != nil {
		return failure(&app.Failure{Code: app.CodeInternal, Detail: app.TextInternal})
	}
	var text string
	switch {
	case res.Catalog != nil:
		text = string(body)
	case res.Refusal != nil:
		text = "refused (" + string(res.Refusal.Code()) + "): " + res.Refusal.Detail()
		if secs := res.Refusal.RetryAfterSeconds(); secs > 0 {
			text += "\nretry_after_seconds: " + strconv.FormatInt(secs, 10)
		}
	case res.Rows != nil:
		text = tabular(res.Rows)
	default:
		text = outcomeText(res.Outcome())
	}
	return &mcp.CallToolResult{StructuredContent: body, Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
}

// outcomeText is the text block of an outcome: for an answer the
// tab-separated header and rows, then a blank line and the provenance; for a
// refusal "refused (<code>): <detail>".
func outcomeText(out domain.Outcome) string {
	if out.Refusal != nil {
		return "refused (" + string(out.Refusal.Code()) + "): " + out.Refusal.Detail()
	}
	if out.Estimate != nil {
		return estimateText(out.Estimate)
	}
	a := out.Answer
	var b strings.Builder
	b.WriteString(tabular(&a.RowSet))
	p := a.Provenance
	b.WriteString("\ndefinition_version: " + p.DefinitionVersion + "\n")
	b.WriteString("definition_digest: " + p.DefinitionDigest + "\n")
	for _, m := range p.MetricDigests {
		b.WriteString("metric_digest " + m.Metric + ": " + m.Digest + "\n")
	}
	for _, e := range p.ExecutedAs {
		b.WriteString("executed_as " + e.Source + ": " + string(e.Posture) + "\n")
	}
	return b.String()
}

// tabular is the tab-separated header and rows of rs.
func tabular(rs *domain.RowSet) string {
	var b strings.Builder
	for i, c := range rs.Columns {
		if i > 0 {
			b.WriteByte('\t')
		}
		b.WriteString(escapeCell(c.Name))
	}
	b.WriteByte('\n')
	for _, row := range rs.Rows {
		for i, c := range row {
			if i > 0 {
				b.WriteByte('\t')
			}
			b.WriteString(escapeCell(c.Render()))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// cellEscaper escapes the characters that would break the tab-separated
// layout; the backslash is escaped too, so the text reads back unambiguously.
var cellEscaper = strings.NewReplacer(`\`, `\\`, "\t", `\t`, "\n", `\n`, "\r", `\r`)

func escapeCell(s string) string { return cellEscaper.Replace(s) }

// failure tells a failure on its MCP channel (docs/contract.md §5): a tool the
// caller may not call is JSON-RPC error -32602 naming the tool (and the
// scope that would grant it); a caller that went away gets the context's
// error, which the SDK turns into a JSON-RPC error nobody is waiting for;
// every other failure is a tool result with isError and the failure's
// sentence, which never holds a caller value or a data system's text.
func failure(f *app.Failure) (*mcp.CallToolResult, error) {
	switch f.Code {
	case app.CodeToolNotEnabled, app.CodeInsufficientScope:
		return nil, ownError(jsonrpc.CodeInvalidParams, f.Detail)
	case app.CodeCancelled:
		return nil, context.Canceled
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: f.Detail}}}, nil
}
