package explain

import (
	"fmt"
	"strconv"
	"strings"

	"sutura.dev/domain"
)

// Text renders e for a reader, one fact a line, each line starting with
// its field's name: what the MCP text block and `sutura ask` print under
// the table. Caller-sent filter values appear as Build kept them
// (allowlisted only); the statements' text and parameters are quoted so
// a newline in them cannot pass for another line.
func Text(e *domain.Explanation) string {
	if e == nil {
		return ""
	}
	var b strings.Builder
	for _, d := range e.Definitions {
		fmt.Fprintf(&b, "definition %s: %s; time column %s", d.Metric, d.Measure, d.TimeColumn)
		for _, f := range d.RequiredFilters {
			b.WriteString("; " + f)
		}
		fmt.Fprintf(&b, " (digest %s)\n", d.Digest)
	}
	for _, f := range e.Filters {
		fmt.Fprintf(&b, "filter %s %s %s\n", f.Dimension, f.Op, strings.Join(quoted(f.Values), ", "))
	}
	for _, l := range e.Legs {
		fmt.Fprintf(&b, "leg %s: %s as %s; ", l.Source, l.Posture, l.Identity)
		if l.Measured {
			fmt.Fprintf(&b, "%d rows and %d bytes scanned, ", l.RowsScanned, l.BytesScanned)
		}
		fmt.Fprintf(&b, "%s ms", strconv.FormatFloat(l.ElapsedMS, 'f', -1, 64))
		if l.Cache != "" {
			b.WriteString("; cache " + l.Cache)
		}
		b.WriteByte('\n')
	}
	for _, d := range e.DataThrough {
		fmt.Fprintf(&b, "data_through %s (%s): %s\n", d.Model, d.Source, d.Through)
	}
	for _, n := range e.Notes {
		b.WriteString("note: " + n + "\n")
	}
	for _, s := range e.Statements {
		fmt.Fprintf(&b, "statement %s (%s): %s params [%s]\n", s.Source, s.Dialect, strconv.Quote(s.Text), strings.Join(quoted(s.Params), ", "))
	}
	if e.TraceID != "" {
		b.WriteString("trace_id: " + e.TraceID + "\n")
	}
	return b.String()
}

func quoted(vs []string) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = strconv.Quote(v)
	}
	return out
}
