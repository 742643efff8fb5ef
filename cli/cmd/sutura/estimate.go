package main

import (
	"fmt"
	"io"

	"sutura.dev/domain"
)

// writeEstimate prints a dry run's estimate (docs/contract.md §15): the
// bytes, one line per data system, and the refusal the question would
// meet.
func writeEstimate(w io.Writer, e *domain.Estimate) {
	fmt.Fprintf(w, "estimated scan: %d bytes\n", e.Bytes)
	for _, l := range e.PerLeg {
		if l.Known {
			fmt.Fprintf(w, "  %s: %d bytes\n", l.Source, l.Bytes)
		} else {
			fmt.Fprintf(w, "  %s: unknown (the scan ceiling does not apply)\n", l.Source)
		}
	}
	if r := e.WouldRefuse; r != nil {
		fmt.Fprintf(w, "would be refused (%s): %s\n", r.Code(), r.Detail())
		return
	}
	fmt.Fprintln(w, "would be answered")
}
