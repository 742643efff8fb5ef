package main

import (
	"fmt"
	"strings"
	"unicode"

	"sutura.dev/app"
	"sutura.dev/domain"
)

// flagProblem says what is wrong with a question given as flags (sutura
// ask) in the words of its flags, not of the wire fields they fill:
// "--from 2026-1-1: not a date (YYYY-MM-DD)" rather than "range.start is
// not a date". The person's own flag value is shown back on their own
// terminal only when it is plain printable text (a control or invisible
// character is never written to the terminal); a filter value never is.
func flagProblem(fe *domain.FieldError, filterFlags []string, get func(string) string) error {
	problem := strings.TrimPrefix(fe.Problem, "is ")
	named := func(flag string) error {
		if v := get(strings.TrimPrefix(flag, "--")); showable(v) {
			return usagef("%s %s: %s", flag, v, problem)
		}
		return usagef("%s: %s", flag, problem)
	}
	switch field := fe.Field; {
	case field == "range" && fe.Problem == "is required":
		return usagef("a range is required: --from YYYY-MM-DD --to YYYY-MM-DD (--to is the day after the last, so --from 2025-01-01 --to 2025-04-01 is the first quarter), or --last N for the last N whole periods of --grain")
	case field == "range.end" && strings.Contains(fe.Problem, "after range.start"):
		return usagef("--to must be after --from (the range is half-open: --to is the day after its last day)")
	case field == "range.start":
		return named("--from")
	case field == "range.end":
		return named("--to")
	case field == "range.last.count":
		return named("--last")
	case field == "range.last.unit", field == "grain":
		if get("grain") == "" {
			return usagef("--grain is required: day, week, month, quarter or year")
		}
		return named("--grain")
	case field == "metrics" || strings.HasPrefix(field, "metrics["):
		return usagef("the metric names: %s (sutura catalog lists them)", problem)
	case field == "dimensions" || strings.HasPrefix(field, "dimensions["):
		return usagef("--by: %s", problem)
	case strings.HasPrefix(field, "filters["):
		flag := "--where"
		var i int
		if _, err := fmt.Sscanf(field, "filters[%d]", &i); err == nil && i < len(filterFlags) {
			flag = filterFlags[i]
		}
		what := "a value"
		if strings.HasSuffix(field, ".dimension") {
			what = "the dimension name"
		}
		return usagef("%s: %s %s", flag, what, fe.Problem)
	case field == "filters":
		return usagef("--where: %s", problem)
	case field == "top.n":
		return named("--top")
	case field == "top.by":
		return named("--top-by")
	case field == "top.direction":
		return named("--direction")
	}
	return fmt.Errorf("not a question: %w", fe)
}

// showable reports whether a flag value may be written back to the
// terminal: short, and nothing but printable characters.
func showable(v string) bool {
	if v == "" || len(v) > 32 || domain.CheckValue(v) != nil {
		return false
	}
	for _, r := range v {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// zeroRowsNote is what an answer without rows says on the command line
// when the range asked lies outside the span of the metric's data: "0
// rows: net_sales has data from 2024-01-01 to 2026-06-30", and the range
// asked. It is empty otherwise: the answer has rows, the span is not known,
// or the range overlaps it (a filter left nothing).
func zeroRowsNote(s *app.Surface, q domain.Question, out domain.Outcome) string {
	if out.Answer == nil || len(out.Answer.Rows) > 0 || len(q.Metrics) == 0 {
		return ""
	}
	span, ok := s.MetricSpan(q.Metrics[0])
	asked := q.Range.Resolve(today())
	if !ok || span.Overlaps(asked) {
		return ""
	}
	who := q.Metrics[0] + " has"
	if len(q.Metrics) > 1 {
		who = strings.Join(q.Metrics, ", ") + " have"
	}
	return fmt.Sprintf("0 rows: %s data from %s to %s; the range asked runs from %s to %s",
		who, span.First, span.Last, asked.Start, asked.End.AddDays(-1))
}
