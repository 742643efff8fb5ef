package compose

import (
	"context"

	"sutura.dev/app"
	inproc "sutura.dev/transport-inproc"
)

// InProcessOptions adjust the in-process connection.
type InProcessOptions struct {
	// ServerID names the tool server to the kernel; empty is "sutura".
	ServerID string
	// Caller resolves who is asking from a call's context; nil is the
	// local operator.
	Caller func(ctx context.Context) app.Caller
}

// InProcess returns the in-process tool-server connection of the process
// (docs/contract.md §6): the same surface, the same capability list and the same
// admission bound as every other transport of this process.
func (p *Process) InProcess(opts InProcessOptions) (*inproc.Connection, error) {
	return inproc.New(inproc.Config{
		Surface: p.Surface, Admission: p.Admission,
		ServerID: opts.ServerID, Caller: opts.Caller, EnforceScopes: opts.Caller != nil,
	})
}
