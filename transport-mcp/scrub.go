package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"sutura.dev/domain"
)

// No response on any transport quotes a caller-supplied string. The SDK's
// own error messages do: "unmarshaling %q" with the raw params, the
// unknown method, the bad jsonrpc tag, the unknown tool's name, the
// Mcp-* header values. They are written before (or around) any handler of
// sutura's, so every transport scrubs what leaves it: each JSON-RPC error
// keeps its code and id, and its message becomes the fixed sentence of
// its code, unless sutura wrote the error itself (ownError). Its data is
// dropped. Results are sutura's own (they are rendered from the outcome,
// which never echoes a value) and pass unchanged; so does the id, which
// JSON-RPC requires a response to carry back.

// The fixed messages of the scrubbed errors, by JSON-RPC code.
const (
	textParseError     = "parse error: the message is not one JSON-RPC object"
	textInvalidRequest = "invalid request: the message is not a JSON-RPC request this server takes"
	textMethodNotFound = "method not found: this server does not offer that method"
	textInvalidParams  = "invalid params: the params do not have the shape this method takes"
	textUnknownTool    = "unknown tool: this server offers no tool by that name; tools/list names the tools it offers"
	textInternalError  = "internal error"
	textRefused        = "the request was refused"
)

// ownMark is the data of an error sutura wrote itself (ownError): the
// scrubber keeps its message and drops the mark. No caller can make the
// SDK write an error whose data is exactly this.
var ownMark = json.RawMessage(`{"sutura":"own-message"}`)

// ownError is a JSON-RPC error whose message sutura wrote and which quotes
// nothing a caller sent: names of sutura's own tools and scopes at most.
// Every transport lets its message through.
func ownError(code int64, message string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: code, Message: message, Data: ownMark}
}

// scrub returns one encoded JSON-RPC message (or an array of them) as it
// may leave the server: see above. Input that is not JSON-RPC at all (which
// the SDK does not write) becomes an internal error, never itself.
func scrub(data []byte) []byte {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var msgs []json.RawMessage
		if json.Unmarshal(trimmed, &msgs) != nil {
			return rpcErrorBody(jsonrpc.CodeInternalError, textInternalError)
		}
		for i, m := range msgs {
			msgs[i] = scrub(m)
		}
		out, err := json.Marshal(msgs)
		if err != nil {
			return rpcErrorBody(jsonrpc.CodeInternalError, textInternalError)
		}
		return out
	}
	if !bytes.Contains(data, []byte(`"error"`)) {
		return data
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return rpcErrorBody(jsonrpc.CodeInternalError, textInternalError)
	}
	raw, ok := m["error"]
	if !ok {
		return data
	}
	var e struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	if json.Unmarshal(raw, &e) != nil {
		e.Code, e.Message, e.Data = jsonrpc.CodeInternalError, "", nil
	}
	msg := e.Message
	if !bytes.Equal(e.Data, ownMark) {
		msg = fixedMessage(e.Code, e.Message)
	}
	m["error"] = errorObject(e.Code, msg)
	switch e.Code {
	case mcp.CodeUnsupportedProtocolVersion:
		m["error"] = unsupportedVersionError(msg, e.Data)
	case mcp.CodeMissingRequiredClientCapabilities:
		// Its data names capabilities, re-encoded from their type: no
		// caller text survives it.
		var d mcp.MissingRequiredClientCapabilityData
		if json.Unmarshal(e.Data, &d) == nil {
			if b, err := json.Marshal(d); err == nil {
				m["error"] = json.RawMessage(`{"code":` + strconv.FormatInt(e.Code, 10) + `,"message":` + strconv.Quote(msg) + `,"data":` + string(b) + `}`)
			}
		}
	}
	if id, ok := m["id"]; ok && !validID(id) {
		m["id"] = json.RawMessage("null")
	}
	out, err := json.Marshal(m)
	if err != nil {
		return rpcErrorBody(jsonrpc.CodeInternalError, textInternalError)
	}
	return out
}

// fixedMessage is the message a scrubbed error of code carries. An
// unknown tool is named only when the name is one of sutura's capability
// ids (a tool this deployment does not enable): that name is sutura's
// vocabulary, not a caller's string.
func fixedMessage(code int64, message string) string {
	switch code {
	case jsonrpc.CodeParseError:
		return textParseError
	case jsonrpc.CodeInvalidRequest:
		return textInvalidRequest
	case jsonrpc.CodeMethodNotFound:
		return textMethodNotFound
	case jsonrpc.CodeInvalidParams:
		if message == "Resource not found" {
			// mcp.ResourceNotFoundError, for a URI no resource matches
			// and for a metric the caller may not see alike.
			return textResourceNotFound
		}
		if quoted, ok := strings.CutPrefix(message, "unknown tool "); ok {
			name, err := strconv.Unquote(quoted)
			if err == nil && slices.Contains(domain.Capabilities(), domain.Capability(name)) {
				return "unknown tool " + name + ": this deployment does not offer it"
			}
			return textUnknownTool
		}
		return textInvalidParams
	case jsonrpc.CodeInternalError:
		return textInternalError
	case mcp.CodeUnsupportedProtocolVersion:
		return textUnsupportedVersion
	case mcp.CodeHeaderMismatch:
		return "header mismatch: Mcp-Method and Mcp-Protocol-Version must be present and match the request's method and _meta"
	case mcp.CodeMissingRequiredClientCapabilities:
		return "missing required client capabilities: the request needs a capability the client did not declare"
	}
	return textRefused
}

// validID reports whether raw is a JSON-RPC id: a string, a number or
// null. The SDK only echoes ids it decoded as such.
func validID(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch v.(type) {
	case string, float64, nil:
		return true
	}
	return false
}

// textUnsupportedVersion is the message of error -32022, whose data lists
// the versions this server speaks.
const textUnsupportedVersion = "unsupported protocol version: data.supported lists the versions this server speaks"

// unsupportedVersionError is error -32022 in the shape of revision
// 2026-07-28: data.supported lists the versions this server speaks (the
// SDK's own list, never the caller's) and data.requested the version the
// caller asked for, which the revision requires echoed. It is echoed only
// when it has the shape of a version token (at most 32 letters, digits,
// dots, dashes and underscores: "2099-01-01", "v999.0.0"), which can hold
// no markup, space or control character; any other text a caller sent
// there is left out.
func unsupportedVersionError(message string, data json.RawMessage) json.RawMessage {
	var got mcp.UnsupportedProtocolVersionData
	_ = json.Unmarshal(data, &got)
	out := struct {
		Supported []string `json:"supported"`
		Requested string   `json:"requested,omitempty"`
	}{Supported: mcp.SupportedProtocolVersions()}
	if versionShape.MatchString(got.Requested) {
		out.Requested = got.Requested
	}
	d, _ := json.Marshal(out)
	return json.RawMessage(`{"code":` + strconv.FormatInt(mcp.CodeUnsupportedProtocolVersion, 10) + `,"message":` + strconv.Quote(message) + `,"data":` + string(d) + `}`)
}

// versionShape is the shape of a version token.
var versionShape = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$`)

func errorObject(code int64, message string) json.RawMessage {
	return json.RawMessage(`{"code":` + strconv.FormatInt(code, 10) + `,"message":` + strconv.Quote(message) + `}`)
}

// rpcErrorBody is a JSON-RPC error response with a null id.
func rpcErrorBody(code int64, message string) []byte {
	return []byte(`{"jsonrpc":"2.0","id":null,"error":` + string(errorObject(code, message)) + `}`)
}

// scrubMessage is scrub for a decoded message: what a connection's Write
// is given.
func scrubMessage(msg jsonrpc.Message) (jsonrpc.Message, error) {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return nil, err
	}
	clean := scrub(data)
	if bytes.Equal(clean, data) {
		return msg, nil
	}
	return jsonrpc.DecodeMessage(clean)
}

// Connect serves one session over t, a transport this package does not
// frame itself (the SDK's in-memory transports of an in-process host, a
// test), with every message scrubbed on its way out as on stdio and
// Streamable HTTP. Use it rather than MCP().Connect.
func (s *Server) Connect(ctx context.Context, t mcp.Transport, opts *mcp.ServerSessionOptions) (*mcp.ServerSession, error) {
	return s.mcp.Connect(withCarrier(ctx), scrubbedTransport{t}, opts)
}

// scrubbedTransport scrubs every message its connections write.
type scrubbedTransport struct{ mcp.Transport }

func (t scrubbedTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return scrubbedConn{c}, nil
}

type scrubbedConn struct{ mcp.Connection }

func (c scrubbedConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	clean, err := scrubMessage(msg)
	if err != nil {
		return err
	}
	return c.Connection.Write(ctx, clean)
}
