package inproc

import (
	"context"
	"errors"
	"fmt"

	"sutura.dev/app"
	"sutura.dev/app/wire"
	"sutura.dev/domain"
	"sutura.dev/runtime"
)

// DefaultServerID is the server id of a Connection whose Config names none.
const DefaultServerID = "sutura"

// Config wires a Connection. Surface and Admission are required; the zero
// value of every other field is its default.
type Config struct {
	// Surface is the app surface every call goes through.
	Surface *app.Surface
	// Tools is the capability list this connection serves; nil is the
	// surface's (app.Surface.Tools). A list that is not the surface's fails
	// New: whether a tool is enabled is the surface's decision.
	Tools []app.Tool
	// Admission is the process's one admission bound, built by the
	// composition root; it must be the bound Surface takes its slots from.
	// A connection never has a bound of its own.
	Admission *runtime.Admission
	// ServerID names this tool server to the kernel; empty is
	// DefaultServerID.
	ServerID string
	// Caller resolves who is asking from a call's context; nil means the
	// local operator (domain.LocalOperator). A Caller without a correlation
	// id gets a fresh one per call.
	Caller func(ctx context.Context) app.Caller
	// EnforceScopes says the callers Caller resolves carry their scopes
	// (app.Caller.Scoped): the surface then refuses a tool their scopes do
	// not grant, told as *NotGrantedError. Set it when the caller's
	// principal carries scopes.
	EnforceScopes bool
	// ChunkRows bounds the rows of one streamed record; zero is
	// DefaultChunkRows.
	ChunkRows int
	// ChunkBytes bounds the rendered cells of one streamed record (a record
	// holds at least one row); zero is DefaultChunkBytes.
	ChunkBytes int
	// EventBuffer bounds the events kept between two DrainEvents; the
	// oldest are dropped first, and counted. Zero is DefaultEventBuffer.
	EventBuffer int
}

// Connection is sutura as an in-process tool server. It is safe for
// concurrent use; Close ends its subscription to catalogue events.
type Connection struct {
	surface  *app.Surface
	id       string
	tools    map[domain.Capability]app.Tool
	manifest wire.Manifest
	cfg      Config
	events   *eventQueue
	stop     func()
}

// New builds the connection cfg describes. It fails without a surface or
// the shared admission bound, and for a tool this build cannot serve.
func New(cfg Config) (*Connection, error) {
	if cfg.Surface == nil {
		return nil, errors.New("inproc: a connection needs the app surface")
	}
	if cfg.Admission == nil || cfg.Admission != cfg.Surface.Admission() {
		return nil, errors.New("inproc: a connection needs the process's one admission bound, the one the surface takes its slots from")
	}
	tools, err := app.ServedTools(cfg.Surface, cfg.Tools)
	if err != nil {
		return nil, fmt.Errorf("inproc: %w", err)
	}
	cfg.Tools = tools
	if cfg.ServerID == "" {
		cfg.ServerID = DefaultServerID
	}
	if cfg.ChunkRows == 0 {
		cfg.ChunkRows = DefaultChunkRows
	}
	if cfg.ChunkBytes == 0 {
		cfg.ChunkBytes = DefaultChunkBytes
	}
	if cfg.EventBuffer == 0 {
		cfg.EventBuffer = DefaultEventBuffer
	}
	if cfg.ChunkRows < 0 || cfg.ChunkBytes < 0 || cfg.EventBuffer < 0 {
		return nil, errors.New("inproc: chunk and event bounds may not be negative")
	}
	m, err := wire.NewManifest(cfg.Tools)
	if err != nil {
		return nil, err
	}
	c := &Connection{
		surface: cfg.Surface, id: cfg.ServerID, manifest: m, cfg: cfg,
		tools: make(map[domain.Capability]app.Tool, len(cfg.Tools)), events: newEventQueue(cfg.EventBuffer),
	}
	for _, t := range cfg.Tools {
		c.tools[t.ID] = t
	}
	c.stop = cfg.Surface.Subscribe(c.events.catalog)
	return c, nil
}

// Close ends the connection's subscription to catalogue events. Calls
// still work after it; no further events are kept.
func (c *Connection) Close() error {
	c.stop()
	return nil
}

// ServerID returns the id the kernel registers this tool server under.
func (c *Connection) ServerID() string { return c.id }

// ToolNames returns the names of the tools served, in declaration order:
// exactly the tools the manifest declares.
func (c *Connection) ToolNames() []string {
	names := make([]string, len(c.manifest.Tools))
	for i, d := range c.manifest.Tools {
		names[i] = string(d.ID)
	}
	return names
}

// Manifest returns the tool declarations with their version: the record
// `sutura tools` prints for this capability list. It is the caller's copy.
func (c *Connection) Manifest() wire.Manifest {
	return wire.Manifest{Version: c.manifest.Version, Tools: c.Declarations()}
}

// Declarations returns the declaration of every tool served, in order:
// id, title, description, scope, input and output schema, annotations.
// They are the caller's copy.
func (c *Connection) Declarations() []wire.Declaration {
	out := make([]wire.Declaration, len(c.manifest.Tools))
	for i, d := range c.manifest.Tools {
		d.InputSchema, d.OutputSchema = d.InputSchema.Clone(), d.OutputSchema.Clone()
		if d.Annotations.DestructiveHint != nil {
			v := *d.Annotations.DestructiveHint
			d.Annotations.DestructiveHint = &v
		}
		if d.Annotations.OpenWorldHint != nil {
			v := *d.Annotations.OpenWorldHint
			d.Annotations.OpenWorldHint = &v
		}
		out[i] = d
	}
	return out
}

// ToolIsReadOnly reports whether tool is declared read-only, from its
// declaration's annotations (readOnlyHint); false for a tool not served.
func (c *Connection) ToolIsReadOnly(tool string) bool {
	d, ok := c.manifest.Tool(domain.Capability(tool))
	return ok && d.Annotations.ReadOnlyHint
}

// MeasuresRealizedCost reports whether InvokeWithCost's figures of rows
// scanned and bytes read are measured for every answer: true when every
// configured data system measures its work (app.CostReporter).
func (c *Connection) MeasuresRealizedCost() bool { return c.surface.MeasuresCost() }

// caller resolves who is asking from ctx (Config.Caller, or the local
// operator); the surface gives a call without a correlation id a fresh one.
func (c *Connection) caller(ctx context.Context) app.Caller {
	caller := app.ResolveCaller(ctx, c.cfg.Caller, c.cfg.EnforceScopes)
	if caller.Transport == "" {
		// A kernel's own span in ctx is the parent (docs/contract.md §16).
		caller.Transport = "inproc"
	}
	return caller
}
