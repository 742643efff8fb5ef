package mcpserver

import (
	"strconv"
	"strings"

	"sutura.dev/domain"
)

// estimateText is the text block of a dry run (docs/contract.md §15): the
// estimated bytes, one line per leg, and the refusal the question would
// meet, with the seconds to wait for budget_exhausted.
func estimateText(e *domain.Estimate) string {
	var b strings.Builder
	b.WriteString("estimate: " + strconv.FormatInt(e.Bytes, 10) + " bytes\n")
	for _, l := range e.PerLeg {
		v := "unknown"
		if l.Known {
			v = strconv.FormatInt(l.Bytes, 10)
		}
		b.WriteString("leg " + l.Source + ": " + v + "\n")
	}
	if r := e.WouldRefuse; r != nil {
		b.WriteString("would be refused (" + string(r.Code()) + "): " + r.Detail() + "\n")
		if s := r.RetryAfterSeconds(); s > 0 {
			b.WriteString("retry_after_seconds: " + strconv.FormatInt(s, 10) + "\n")
		}
	} else {
		b.WriteString("would be answered\n")
	}
	return b.String()
}
