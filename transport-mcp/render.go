package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"sutura.dev/app"
	"sutura.dev/domain"
)

// The fixed sentences of the failure channels (product.md §5). None carries
// a caller value or a data system's text.
const (
	TextAtCapacity       = "at capacity, ask again shortly"
	TextTimeout          = "the question ran out of time; it was stopped; ask for less"
	TextUnavailable      = "the data system is unavailable; the question was not answered; ask again later"
	TextInternal         = "the service failed to answer; this is not a problem with the question"
	TextZeroDenominator  = "a ratio's denominator is zero for this question and its metric is defined to fail then; ask for another range, grain or grouping"
	textNotAQuestionHead = "the arguments are not a question: "
)

// outcomeResult renders an answer or a refusal: structuredContent is the
// outcome's wire body, and one text block carries the same for a reader.
func outcomeResult(out domain.Outcome) (*mcp.CallToolResult, error) {
	body, err := out.MarshalJSON()
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{
		StructuredContent: json.RawMessage(body),
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
	for i, c := range a.Columns {
		if i > 0 {
			b.WriteByte('\t')
		}
		b.WriteString(escapeCell(c.Name))
	}
	b.WriteByte('\n')
	for _, row := range a.Rows {
		for i, c := range row {
			if i > 0 {
				b.WriteByte('\t')
			}
			b.WriteString(escapeCell(c.Render()))
		}
		b.WriteByte('\n')
	}
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

// cellEscaper escapes the characters that would break the tab-separated
// layout; the backslash is escaped too, so the text reads back unambiguously.
var cellEscaper = strings.NewReplacer(`\`, `\\`, "\t", `\t`, "\n", `\n`, "\r", `\r`)

func escapeCell(s string) string { return cellEscaper.Replace(s) }

// toolError is a tool result with isError and one text block.
func toolError(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// notAQuestion is the tool error for arguments that are not a question. A
// *domain.FieldError names the field and never holds a caller value; any
// other error is replaced by a fixed sentence.
func notAQuestion(err error) *mcp.CallToolResult {
	var fe *domain.FieldError
	if errors.As(err, &fe) {
		return toolError(textNotAQuestionHead + fe.Error())
	}
	return toolError(textNotAQuestionHead + "they could not be read")
}

// failure maps a failure of app.Surface.Answer to its channel: a tool error
// with a fixed sentence, or (for a peer that went away) the context's error,
// which the SDK turns into a JSON-RPC error nobody is waiting for. reported
// says whether the failure is worth an operator's log line.
func failure(err error) (res *mcp.CallToolResult, rpcErr error, reported bool) {
	switch {
	case errors.Is(err, app.ErrAtCapacity):
		return toolError(TextAtCapacity), nil, false
	case errors.Is(err, app.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		return toolError(TextTimeout), nil, false
	case errors.Is(err, context.Canceled):
		return nil, err, false
	case errors.Is(err, domain.ErrZeroDenominator):
		return toolError(TextZeroDenominator), nil, false
	case errors.Is(err, app.ErrUnavailable):
		return toolError(TextUnavailable), nil, true
	}
	return toolError(TextInternal), nil, true
}
