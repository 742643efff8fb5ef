package main

import (
	"fmt"

	"sutura.dev/domain"
	"sutura.dev/semantic"
)

// leg is one leg of a federated plan as compile prints it.
type leg struct {
	Leg       int                `json:"leg"`
	Source    string             `json:"source"`
	Kind      string             `json:"kind"`
	Dialect   semantic.Dialect   `json:"dialect"`
	Statement semantic.Statement `json:"statement"`
}

// printLegs prints the statement of every leg of a federated plan in
// dialect (each as its source would run it, bounded by maxLegRows rows),
// with its source and kind: the base leg of partials first, then each
// lookup leg; with --json, {"legs": [...], "combine": ...}.
func printLegs(inv *invocation, b *domain.Bundle, plan *domain.Plan, dialect semantic.Dialect, maxLegRows int) error {
	var legs []leg
	for i := range plan.Legs {
		lp := plan.LegPlan(i, maxLegRows)
		st, err := semantic.Render(lp, dialect)
		if err != nil {
			return err
		}
		kind := "base"
		if plan.Legs[i].Kind == domain.LegLookup {
			kind = "lookup"
		}
		legs = append(legs, leg{Leg: i, Source: plan.Legs[i].Source, Kind: kind, Dialect: dialect, Statement: st})
	}
	if inv.boolFlag("json") {
		return writeJSON(inv.io.out, struct {
			Legs    []leg           `json:"legs"`
			Combine *domain.Combine `json:"combine"`
		}{legs, plan.Combine})
	}
	fmt.Fprintf(inv.io.out, "-- %d legs across data systems, combined by the embedded engine; dialect %s; catalogue %s digest %s\n",
		len(legs), dialect, b.Version(), b.Digest())
	for _, l := range legs {
		fmt.Fprintf(inv.io.out, "\n-- leg %d (%s) on source %s\n%s\n", l.Leg, l.Kind, l.Source, l.Statement.SQL)
		if len(l.Statement.Params) > 0 {
			fmt.Fprintln(inv.io.out, "-- parameters")
			for _, p := range l.Statement.Params {
				fmt.Fprintf(inv.io.out, "-- %s %s = %q\n", p.Name, p.Kind, p.Value)
			}
		}
	}
	return nil
}
