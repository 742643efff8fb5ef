package mcpserver

import (
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"sutura.dev/app"
	"sutura.dev/app/wire"
	"sutura.dev/domain"
)

// The fixed sentences of the failure channels (product.md §5), shared by
// every transport (package wire).
const (
	TextAtCapacity      = wire.TextAtCapacity
	TextTimeout         = wire.TextTimeout
	TextUnavailable     = wire.TextUnavailable
	TextInternal        = wire.TextInternal
	TextZeroDenominator = wire.TextZeroDenominator
	TextStatementFailed = wire.TextStatementFailed
)

// outcomeResult renders an answer or a refusal: structuredContent is the
// outcome's wire body (wire.OutcomeContent, as every transport returns it),
// and one text block carries the same for a reader.
func outcomeResult(out domain.Outcome) (*mcp.CallToolResult, error) {
	body, err := wire.OutcomeContent(out)
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{
		StructuredContent: body,
		Content:           []mcp.Content{&mcp.TextContent{Text: outcomeText(out)}},
	}, nil
}

// outcomeText is the text block of an outcome: for an answer the
// tab-separated header and rows, then a blank line and the provenance; for a
// refusal "refused (<code>): <detail>".
func outcomeText(out domain.Outcome) string {
	if out.Refusal != nil {
		return "refused (" + string(out.Refusal.Code()) + "): " + out.Refusal.Detail()
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

// sqlResult renders a run_sql outcome: structuredContent is its wire body
// (wire.SQLContent), and one text block carries the tab-separated header
// and rows, with no provenance, or "refused (<code>): <detail>".
func sqlResult(out app.SQLOutcome) (*mcp.CallToolResult, error) {
	body, err := wire.SQLContent(out)
	if err != nil {
		return nil, err
	}
	text := ""
	if out.Refusal != nil {
		text = "refused (" + string(out.Refusal.Code()) + "): " + out.Refusal.Detail()
	} else {
		text = tabular(out.Rows)
	}
	return &mcp.CallToolResult{
		StructuredContent: body,
		Content:           []mcp.Content{&mcp.TextContent{Text: text}},
	}, nil
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

// toolError is a tool result with isError and one text block.
func toolError(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// notAQuestion is the tool error for arguments that are not a question,
// naming the field, never the value (wire.NotAQuestion).
func notAQuestion(err error) *mcp.CallToolResult { return toolError(wire.NotAQuestion(err)) }

// failure maps a failure of app.Surface.Answer to its channel (wire.FailureOf):
// a tool error with a fixed sentence, or (for a peer that went away) the
// context's error, which the SDK turns into a JSON-RPC error nobody is
// waiting for. reported says whether the failure is worth an operator's log
// line.
func failure(err error) (res *mcp.CallToolResult, rpcErr error, reported bool) {
	f, ok := wire.FailureOf(err)
	if !ok {
		return nil, err, false
	}
	return toolError(f.Text), nil, f.Report
}
