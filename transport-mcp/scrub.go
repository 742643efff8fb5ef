package mcpserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
)

// When the params of a request do not decode into the method's params type
// (a tools/call whose name is a number, say), the SDK answers -32602 with a
// message that quotes the raw params, caller values included. That happens
// before any handler, so the transports scrub such responses on the way out.

// textInvalidParams replaces a message that quotes the params.
const textInvalidParams = "invalid params: the params do not have the shape this method takes"

// scrub returns the encoded JSON-RPC message with any message quoting raw
// params replaced; other messages are returned as they are.
func scrub(data []byte) []byte {
	if !bytes.Contains(data, []byte(`"error"`)) || !bytes.Contains(data, []byte("unmarshaling")) {
		return data
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil || m["error"] == nil {
		return data
	}
	var e struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}
	if json.Unmarshal(m["error"], &e) != nil || e.Code != -32602 || !strings.Contains(e.Message, "unmarshaling") {
		return data
	}
	m["error"] = json.RawMessage(`{"code":-32602,"message":` + strconv.Quote(textInvalidParams) + `}`)
	out, err := json.Marshal(m)
	if err != nil {
		return data
	}
	return out
}

// scrubWriter buffers an application/json response (the stateless handler
// writes one JSON-RPC message per POST) so that scrub can see it whole.
// Event streams pass through untouched.
type scrubWriter struct {
	http.ResponseWriter
	status int
	buf    bytes.Buffer
	json   bool
	passed bool
}

func (w *scrubWriter) WriteHeader(status int) {
	if w.status != 0 || w.passed {
		return
	}
	w.status = status
	w.json = w.Header().Get("Content-Type") == "application/json"
	if !w.json {
		w.passed = true
		w.ResponseWriter.WriteHeader(status)
	}
}

func (w *scrubWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if w.json {
		return w.buf.Write(p)
	}
	return w.ResponseWriter.Write(p)
}

// Flush passes through for event streams; a JSON body is written whole at
// the end.
func (w *scrubWriter) Flush() {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok && !w.json {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *scrubWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// finish writes a buffered JSON body, scrubbed.
func (w *scrubWriter) finish() {
	if !w.json {
		return
	}
	body := scrub(w.buf.Bytes())
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.ResponseWriter.WriteHeader(w.status)
	_, _ = w.ResponseWriter.Write(body)
}
