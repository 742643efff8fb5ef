package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"sutura.dev/app"
	"sutura.dev/app/explain"
	"sutura.dev/domain"
	"sutura.dev/semantic"
)

// listFlag collects a repeatable flag whose values may also be
// comma-separated.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error {
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			*l = append(*l, part)
		}
	}
	return nil
}

// rawFlag collects a repeatable flag verbatim.
type rawFlag []string

func (l *rawFlag) String() string     { return strings.Join(*l, " ") }
func (l *rawFlag) Set(s string) error { *l = append(*l, s); return nil }

func queryFlags(fs *flag.FlagSet) {
	fs.Bool("json", false, "print exactly the HTTP body (answer or refusal) instead of a table")
}

func askFlags(fs *flag.FlagSet) {
	queryFlags(fs)
	fs.Var(new(listFlag), "by", "group by these dimensions (repeatable or comma-separated)")
	fs.String("grain", "", "day, week, month, quarter or year (required)")
	fs.String("from", "", "first day of the range, YYYY-MM-DD")
	fs.String("to", "", "day after the range, YYYY-MM-DD (half-open)")
	fs.Int("last", 0, "instead of --from/--to: the last N whole periods of --grain")
	fs.Var(new(rawFlag), "where", "filter dimension=value; repeat a dimension for several values (repeatable)")
	fs.Var(new(rawFlag), "where-not", "exclude dimension=value (repeatable)")
	fs.Int("top", 0, "keep the first N groups")
	fs.String("top-by", "metric", "rank top by metric or period")
	fs.String("direction", "desc", "top direction: desc or asc")
	fs.Bool("dry-run", false, "estimate the bytes the question would scan and say whether it would be refused, without running it")
}

// askQuestion builds the wire form of a question from the flags and
// decodes it with the same rules as the wire, so errors name the field.
func askQuestion(inv *invocation) (domain.Question, error) {
	get := func(name string) string { return inv.flags.Lookup(name).Value.String() }
	var metrics []any
	for _, a := range inv.args {
		for _, m := range strings.Split(a, ",") {
			if m = strings.TrimSpace(m); m != "" {
				metrics = append(metrics, m)
			}
		}
	}
	q := domain.Object{{Key: "metrics", Value: metrics}}
	if g := get("grain"); g != "" {
		q = append(q, domain.Member{Key: "grain", Value: g})
	}
	if get("last") != "0" && (get("from") != "" || get("to") != "") {
		return domain.Question{}, usagef("--last replaces --from and --to: give one or the other")
	}
	switch last := get("last"); {
	case last != "0":
		q = append(q, domain.Member{Key: "range", Value: domain.Object{{Key: "last", Value: domain.Object{
			{Key: "count", Value: json.Number(last)}, {Key: "unit", Value: get("grain")}}}}})
	case get("from") != "" && get("to") == "":
		return domain.Question{}, usagef("--from needs --to (YYYY-MM-DD, the day after the last day of the range), or use --last N")
	case get("to") != "" && get("from") == "":
		return domain.Question{}, usagef("--to needs --from (YYYY-MM-DD), or use --last N")
	case get("from") != "" || get("to") != "":
		q = append(q, domain.Member{Key: "range", Value: domain.Object{{Key: "start", Value: get("from")}, {Key: "end", Value: get("to")}}})
	}
	if by := *inv.flags.Lookup("by").Value.(*listFlag); len(by) > 0 {
		dims := make([]any, len(by))
		for i, d := range by {
			dims[i] = d
		}
		q = append(q, domain.Member{Key: "dimensions", Value: dims})
	}
	var filters []any
	var filterFlags []string // the flag of each filter, for errors
	for _, spec := range []struct{ flag, op string }{{"where", "in"}, {"where-not", "not_in"}} {
		var order []string
		values := map[string][]any{}
		for _, w := range *inv.flags.Lookup(spec.flag).Value.(*rawFlag) {
			dim, val, ok := strings.Cut(w, "=")
			if !ok {
				return domain.Question{}, usagef("--%s takes dimension=value", spec.flag)
			}
			dim = strings.TrimSpace(dim)
			if _, seen := values[dim]; !seen {
				order = append(order, dim)
			}
			values[dim] = append(values[dim], val)
		}
		for _, dim := range order {
			filterFlags = append(filterFlags, "--"+spec.flag)
			vs := values[dim]
			if spec.op == "in" && len(vs) == 1 {
				filters = append(filters, domain.Object{{Key: "op", Value: "eq"}, {Key: "dimension", Value: dim}, {Key: "value", Value: vs[0]}})
				continue
			}
			filters = append(filters, domain.Object{{Key: "op", Value: spec.op}, {Key: "dimension", Value: dim}, {Key: "values", Value: vs}})
		}
	}
	if len(filters) > 0 {
		q = append(q, domain.Member{Key: "filters", Value: filters})
	}
	if n := get("top"); n != "0" {
		q = append(q, domain.Member{Key: "top", Value: domain.Object{
			{Key: "n", Value: json.Number(n)}, {Key: "by", Value: get("top-by")}, {Key: "direction", Value: get("direction")}}})
	}
	if inv.boolFlag("dry-run") {
		q = append(q, domain.Member{Key: "dry_run", Value: true})
	}
	question, err := domain.DecodeQuestion(q)
	var fe *domain.FieldError
	if errors.As(err, &fe) {
		return question, flagProblem(fe, filterFlags, get)
	}
	if err != nil {
		return question, fmt.Errorf("not a question: %w", err)
	}
	return question, nil
}

func runQuery(inv *invocation) error {
	q, err := readQuestion(inv.args[0], inv.io.in)
	if err != nil {
		return err
	}
	return answer(inv, q)
}

func runAsk(inv *invocation) error {
	q, err := askQuestion(inv)
	if err != nil {
		return err
	}
	return answer(inv, q)
}

// answer runs q through the same Surface every transport uses (admission,
// deadline, audit) and prints the outcome: the table with its provenance,
// or the refusal once, on stderr. An answer without rows over a range
// outside the metric's data says so (zeroRowsNote).
func answer(inv *invocation, q domain.Question) error {
	p, err := open(inv, &q)
	if err != nil {
		return err
	}
	defer p.Close()
	ctx, cancel := withRequestTimeout(inv.ctx, p.Config)
	defer cancel()
	out, err := p.Surface.Answer(ctx, app.Caller{Principal: domain.LocalOperator, Transport: "cli"}, q)
	if err != nil {
		return err
	}
	note := zeroRowsNote(p.Surface, q, out)
	if inv.boolFlag("json") {
		if err := writeJSON(inv.io.out, httpBody(out)); err != nil {
			return err
		}
		if note != "" {
			fmt.Fprintln(inv.io.err, "sutura: "+note)
		}
		return nil
	}
	if out.Refusal != nil {
		fmt.Fprintf(inv.io.err, "sutura: refused (%s): %s\n", out.Refusal.Code(), out.Refusal.Detail())
		return errReported
	}
	if out.Estimate != nil {
		writeEstimate(inv.io.out, out.Estimate)
		return nil
	}
	writeAnswer(inv.io.out, out.Answer, note)
	return nil
}

// httpBody is the outcome exactly as POST /v1/query writes it: a refusal
// carries its HTTP status in the reason.
func httpBody(out domain.Outcome) any {
	if out.Refusal != nil {
		return struct {
			Outcome string         `json:"outcome"`
			Reason  json.Marshaler `json:"reason"`
		}{"refusal", out.Refusal.WithStatus()}
	}
	return out
}

// writeAnswer prints an aligned table with the provenance under it; note,
// when set, replaces the count of rows.
func writeAnswer(w io.Writer, a *domain.Answer, note string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for i, c := range a.Columns {
		if i > 0 {
			fmt.Fprint(tw, "\t")
		}
		fmt.Fprint(tw, c.Name)
	}
	fmt.Fprintln(tw)
	for _, row := range a.Rows {
		for i, c := range row {
			if i > 0 {
				fmt.Fprint(tw, "\t")
			}
			fmt.Fprint(tw, strings.NewReplacer("\t", `\t`, "\n", `\n`, "\r", `\r`).Replace(c.Render()))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	pr := a.Provenance
	if note == "" {
		note = fmt.Sprintf("%d row(s)", len(a.Rows))
	}
	fmt.Fprintf(w, "\n%s\n", note)
	fmt.Fprintf(w, "definition_version  %s\n", pr.DefinitionVersion)
	fmt.Fprintf(w, "definition_digest   %s\n", pr.DefinitionDigest)
	for _, md := range pr.MetricDigests {
		fmt.Fprintf(w, "metric_digest       %s %s\n", md.Metric, md.Digest)
	}
	for _, ex := range pr.ExecutedAs {
		fmt.Fprintf(w, "executed_as         %s (%s)\n", ex.Source, ex.Posture)
	}
	if a.Explanation != nil {
		fmt.Fprintf(w, "\nexplanation\n%s", explain.Text(a.Explanation))
	}
}

func runCompile(inv *invocation) error {
	q, err := readQuestion(inv.args[0], inv.io.in)
	if err != nil {
		return err
	}
	dialect := semantic.Postgres
	if len(inv.args) > 1 {
		if dialect, err = semantic.ParseDialect(inv.args[1]); err != nil {
			return usagef("unknown dialect (one of: %s)", dialectNames())
		}
	}
	s, err := load(inv)
	if err != nil {
		return err
	}
	g := s.Config.Governance
	plan, reason := semantic.CompileWith(s.Bundle, domain.LocalOperator, q, today(),
		semantic.Ceilings{LookupLegs: g.LookupLegCeiling, Sources: g.SourceCeiling})
	if reason != nil {
		fmt.Fprintf(inv.io.out, "refused (%s): %s\n", reason.Code(), reason.Detail())
		return errReported
	}
	if plan.Federated() {
		return printLegs(inv, s.Bundle, plan, dialect, g.MaxLegRows)
	}
	st, err := semantic.Render(plan, dialect)
	if err != nil {
		return err
	}
	if inv.boolFlag("json") {
		return writeJSON(inv.io.out, st)
	}
	fmt.Fprintf(inv.io.out, "-- dialect %s; catalogue %s digest %s\n%s\n", dialect, s.Bundle.Version(), s.Bundle.Digest(), st.SQL)
	if len(st.Params) > 0 {
		fmt.Fprintln(inv.io.out, "-- parameters")
		for _, p := range st.Params {
			fmt.Fprintf(inv.io.out, "-- %s %s = %q\n", p.Name, p.Kind, p.Value)
		}
	}
	return nil
}

func dialectNames() string {
	var names []string
	for _, d := range semantic.Dialects() {
		names = append(names, string(d))
	}
	return strings.Join(names, ", ")
}
