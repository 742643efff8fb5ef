package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// frameHTTP wraps the SDK's Streamable HTTP handler h. A POST body is read
// whole (at most maxBody bytes) and a JSON-RPC batch, which the SDK would
// run call by call, all at once, is refused as on stdio before the SDK sees
// it. Every response is scrubbed (scrub.go), the SDK's plain-text errors
// included: they become JSON-RPC errors with a fixed message per status.
// carry gives the request's context to the calls it carries.
//
// The Host header is not checked here: it is the one decision of the
// server /mcp is mounted in (transport-http's allowlist, in front of it).
func frameHTTP(h http.Handler, maxBody int64, carry func(context.Context) context.Context) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Body != nil {
			body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
			var tooLarge *http.MaxBytesError
			switch {
			case errors.As(err, &tooLarge):
				writeRPCError(w, http.StatusRequestEntityTooLarge, jsonrpc.CodeInvalidRequest, textTooLong)
				return
			case err != nil:
				writeRPCError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, textInvalidRequest)
				return
			case isBatch(body):
				writeRPCError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, textBatch)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
		}
		sw := &scrubWriter{ResponseWriter: w}
		defer sw.finish()
		h.ServeHTTP(sw, r.WithContext(carry(r.Context())))
	})
}

// The messages of the framing's own refusals, shared with stdio.
const (
	textBatch   = "invalid request: batches are not accepted; send one message per request"
	textTooLong = "the message is longer than the bound on one message (server.max_body_bytes)"
)

// isBatch reports whether body is a JSON array: a JSON-RPC batch.
func isBatch(body []byte) bool {
	b := bytes.TrimLeft(body, " \t\r\n")
	return len(b) > 0 && b[0] == '['
}

func writeRPCError(w http.ResponseWriter, status int, code int64, message string) {
	body := rpcErrorBody(code, message)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// statusMessages are the JSON-RPC errors that replace the SDK's plain-text
// error responses (http.Error), by HTTP status. The SDK's texts quote
// header values and decoding errors of the body; these quote nothing.
var statusMessages = map[int]struct {
	code int64
	text string
}{
	http.StatusBadRequest:            {jsonrpc.CodeInvalidRequest, "invalid request: the request is not a JSON-RPC message this endpoint takes (one JSON object per POST; Accept naming application/json and text/event-stream; an Mcp-Protocol-Version this server speaks)"},
	http.StatusForbidden:             {jsonrpc.CodeInvalidRequest, "forbidden"},
	http.StatusNotFound:              {jsonrpc.CodeInvalidRequest, "not found: this endpoint keeps no sessions"},
	http.StatusMethodNotAllowed:      {jsonrpc.CodeInvalidRequest, "this endpoint takes POST"},
	http.StatusRequestEntityTooLarge: {jsonrpc.CodeInvalidRequest, textTooLong},
	http.StatusUnsupportedMediaType:  {jsonrpc.CodeInvalidRequest, "the body must be sent as Content-Type: application/json"},
	http.StatusInternalServerError:   {jsonrpc.CodeInternalError, textInternalError},
}

// scrubWriter holds a response of the SDK until it is whole, then writes it
// scrubbed. An event stream is scrubbed event by event as it goes.
type scrubWriter struct {
	http.ResponseWriter
	status int
	buf    bytes.Buffer
	events *eventScrubber // non-nil for text/event-stream
}

func (w *scrubWriter) WriteHeader(status int) {
	if w.status != 0 {
		return
	}
	w.status = status
	if isEventStream(w.Header().Get("Content-Type")) && status < 300 {
		w.events = &eventScrubber{w: w.ResponseWriter}
		w.ResponseWriter.WriteHeader(status)
	}
}

func (w *scrubWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if w.events != nil {
		return w.events.Write(p)
	}
	return w.buf.Write(p)
}

// Flush passes through for event streams, after the whole events written
// so far; any other body is written whole at the end.
func (w *scrubWriter) Flush() {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if w.events != nil {
		// Through the writers wrapped around this one (the HTTP gates'),
		// which may not implement http.Flusher themselves.
		_ = http.NewResponseController(w.ResponseWriter).Flush()
	}
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *scrubWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// finish writes the held response, scrubbed.
func (w *scrubWriter) finish() {
	if w.events != nil {
		w.events.finish()
		return
	}
	if w.status == 0 {
		w.status = http.StatusOK
	}
	body := w.buf.Bytes()
	h := w.Header()
	switch {
	case isJSON(h.Get("Content-Type")) && len(bytes.TrimSpace(body)) == 0:
		// The SDK answers some requests it failed to encode (a
		// resources/read of a URI with a control character) with an empty
		// JSON body: the caller gets a message, not nothing.
		body = rpcErrorBody(jsonrpc.CodeInternalError, textInternalError)
		w.status = http.StatusInternalServerError
	case isJSON(h.Get("Content-Type")):
		body = scrub(body)
	case w.status >= 400:
		m, ok := statusMessages[w.status]
		if !ok {
			m.code, m.text = jsonrpc.CodeInvalidRequest, textRefused
		}
		body = rpcErrorBody(m.code, m.text)
		h.Set("Content-Type", "application/json")
	case len(body) > 0:
		// No success of the SDK's has a body in another type; none
		// leaves unread.
		body = rpcErrorBody(jsonrpc.CodeInternalError, textInternalError)
		h.Set("Content-Type", "application/json")
		w.status = http.StatusInternalServerError
	}
	if len(body) > 0 {
		h.Set("Content-Length", strconv.Itoa(len(body)))
	}
	w.ResponseWriter.WriteHeader(w.status)
	_, _ = w.ResponseWriter.Write(body)
}

func mediaType(ct string) string {
	mt, _, _ := bytes.Cut([]byte(ct), []byte(";"))
	return string(bytes.ToLower(bytes.TrimSpace(mt)))
}

func isJSON(ct string) bool        { return mediaType(ct) == "application/json" }
func isEventStream(ct string) bool { return mediaType(ct) == "text/event-stream" }

// eventScrubber writes a text/event-stream through, one whole event at a
// time, with the JSON-RPC message of each event's data scrubbed.
type eventScrubber struct {
	w       io.Writer
	pending []byte
}

func (e *eventScrubber) Write(p []byte) (int, error) {
	e.pending = append(e.pending, p...)
	for {
		i := bytes.Index(e.pending, []byte("\n\n"))
		if i < 0 {
			return len(p), nil
		}
		event := e.pending[:i+2]
		if _, err := e.w.Write(scrubEvent(event)); err != nil {
			return 0, err
		}
		e.pending = e.pending[i+2:]
	}
}

// finish drops an unfinished event: a stream cut mid-event carries nothing
// a client could use.
func (e *eventScrubber) finish() { e.pending = nil }

// scrubEvent rewrites one event (its lines and the blank line that ends
// it): its data lines, joined, are one JSON-RPC message, written back
// scrubbed on one data line; other fields pass unchanged.
func scrubEvent(event []byte) []byte {
	lines := bytes.Split(bytes.TrimSuffix(event, []byte("\n\n")), []byte("\n"))
	var out, data [][]byte
	for _, l := range lines {
		if v, ok := bytes.CutPrefix(l, []byte("data:")); ok {
			data = append(data, bytes.TrimPrefix(v, []byte(" ")))
			continue
		}
		out = append(out, l)
	}
	if len(data) > 0 {
		// A newline is whitespace in JSON, never inside a string: the
		// message fits on one data line.
		msg := bytes.ReplaceAll(scrub(bytes.Join(data, []byte("\n"))), []byte("\n"), []byte(" "))
		out = append(out, append([]byte("data: "), msg...))
	}
	return append(bytes.Join(out, []byte("\n")), '\n', '\n')
}
