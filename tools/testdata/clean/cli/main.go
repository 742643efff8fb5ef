// Command sutura is the fixture's composition root.
package main

import (
	"fmt"
	"runtime"

	markdown "sutura.dev/adapters/catalog-markdown"
	"sutura.dev/app"
	"sutura.dev/domain"
	execarrow "sutura.dev/exec-arrow"
	rt "sutura.dev/runtime"
	http "sutura.dev/transport-http"
)

// plan has a method of the same name, which is no reference.
type plan struct{}

// NewAdmission is not the runtime's.
func (plan) NewAdmission() int { return 0 }

func main() {
	bound := rt.NewAdmission(runtime.NumCPU()) // the one reference
	srv := &http.Server{Surface: app.NewSurface(bound), Bound: bound}
	q := domain.Question{Metric: "m"}
	fmt.Println(srv.Handle("m"), (&markdown.Reader{}).Read(q), (&execarrow.Engine{}).Columns(q), shadow())
}

// shadow declares a local rt; its selector is not the import.
func shadow() int {
	rt := plan{}
	return rt.NewAdmission() + plan{}.NewAdmission()
}
