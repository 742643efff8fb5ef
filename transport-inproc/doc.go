// Package inproc is sutura's in-process tool-server connection, for agent
// kernels that hold their tool servers in process and call them without a
// protocol (docs/contract.md §6, in-process).
//
// A Connection is built by the composition root over the app.Surface, the
// capability list this deployment permits and the process's one admission
// bound. It offers what a kernel expects of a tool server: a server id,
// the tool names with their declarations (exactly the records `sutura
// tools` prints, package sutura.dev/app/wire), a read-only answer taken from
// the declarations' annotations, and Invoke, which returns exactly the
// structured content the MCP surface returns for the same call. It decides
// nothing about what a question may ask: arguments are parsed by the
// domain, questions are answered, audited, admitted and bounded by
// app.Surface on the same path as every other transport.
//
// How each kind of outcome comes back (docs/contract.md §5):
//
//   - answer and refusal: the structured content, with a nil error; a
//     refusal is a result, not an error;
//   - arguments that are not a question: *ArgumentError, naming the field,
//     never the value;
//   - an unknown tool: *UnknownToolError; a tool the caller's scopes do
//     not grant (Config.EnforceScopes): *NotGrantedError;
//   - at capacity, out of time, a service failure: *FailureError with the
//     fixed sentence of the MCP surface, wrapping app.ErrAtCapacity,
//     app.ErrTimeout, app.ErrUnavailable, app.ErrInternal or
//     domain.ErrZeroDenominator for errors.Is;
//   - a caller that cancelled: ctx's error; the work is stopped at the data
//     system and its admission slot given back.
//
// Beyond a plain tool server, a Connection reports the realized cost of
// each call (InvokeWithCost), streams an answer's rows in bounded chunks
// (InvokeStream) and keeps the events that happen between calls, such as
// a re-pinned catalogue (DrainEvents).
package inproc
