// Package markdown plants registration by init.
package markdown

// Registered lists the registered readers.
var Registered []string

func init() { // planted: no init in an adapter
	Registered = append(Registered, "markdown")
}
