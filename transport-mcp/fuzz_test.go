package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// The fuzz targets drive the two framings sutura writes (the stdio line
// transport and the Streamable HTTP handler) with arbitrary bytes, seeded
// under testdata/fuzz with messages that plant the canary prefix
// "ZZ-canary" in every caller-supplied place. Properties: no panic; every
// response is one JSON-RPC message; none quotes the canary outside its id
// (which JSON-RPC requires to come back); and what is held and written is
// bounded: the stdio reader keeps at most the bound on one message, and a
// response is never larger than fuzzMaxResponse.

// fuzzCanary is the part of the canary a mutated seed most likely keeps.
const fuzzCanary = "ZZ-canary"

// fuzzMaxMessage bounds one message in the fuzzed framings.
const fuzzMaxMessage = 4096

// fuzzMaxResponse bounds one response: the largest sutura writes (the tool
// list, an answer) is a few KiB.
const fuzzMaxResponse = 256 << 10

var (
	fuzzOnce sync.Once
	fuzzEnv  *env
)

func fuzzServer(t *testing.T) *env {
	fuzzOnce.Do(func() { fuzzEnv = newEnv(t, newFake(), envConfig{opts: Options{MaxBodyBytes: fuzzMaxMessage}}) })
	return fuzzEnv
}

// checkResponse reports what is wrong with one response, or "".
func checkResponse(resp []byte) string {
	if len(resp) > fuzzMaxResponse {
		return "a response is larger than the bound"
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(resp, &m); err != nil {
		var batch []json.RawMessage
		if json.Unmarshal(resp, &batch) == nil {
			return "a batch response"
		}
		return "a response that is not one JSON-RPC message"
	}
	delete(m, "id")
	for k, v := range m {
		if strings.Contains(k, fuzzCanary) || bytes.Contains(v, []byte(fuzzCanary)) {
			return "the response quotes the canary"
		}
	}
	return ""
}

// lockedBuffer is an output that late writers may still reach; seen is
// closed once a write holds marker.
type lockedBuffer struct {
	mu     sync.Mutex
	b      bytes.Buffer
	marker []byte
	seen   chan struct{}
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.marker != nil && bytes.Contains(p, l.marker) {
		close(l.seen)
		l.marker = nil
	}
	return l.b.Write(p)
}

func (l *lockedBuffer) Bytes() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return bytes.Clone(l.b.Bytes())
}

// sentinel is the last line of every fuzzed stdio input: its answer says
// the lines before it were read (and the quick ones answered), so the
// input can end without cutting the session short.
const sentinel = `{"jsonrpc":"2.0","id":"fuzz-sentinel","method":"ping"}`

func FuzzStdioFraming(f *testing.F) {
	f.Add([]byte(initializeLine + "\n" + strings.Join(provocations, "\n") + "\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		e := fuzzServer(t)
		out := &lockedBuffer{seen: make(chan struct{}), marker: []byte(`"fuzz-sentinel"`)}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		r, w := io.Pipe()
		go func() {
			_, _ = w.Write(append(append(bytes.Clone(in), '\n'), sentinel+"\n"...))
			select {
			case <-out.seen:
			case <-time.After(2 * time.Second): // a session the input ended
			}
			_ = w.Close()
		}()
		if err := e.server.RunStdio(ctx, r, out, fuzzMaxMessage); err != nil && ctx.Err() == nil {
			t.Fatalf("RunStdio: %v", err)
		}
		lines := bytes.Count(in, []byte("\n")) + 1
		got := out.Bytes()
		if len(got) == 0 {
			return
		}
		if len(got) > lines*fuzzMaxResponse {
			t.Fatalf("%d bytes written for %d lines", len(got), lines)
		}
		for resp := range bytes.SplitSeq(bytes.TrimSuffix(got, []byte("\n")), []byte("\n")) {
			if why := checkResponse(resp); why != "" {
				t.Fatalf("%s: %q", why, resp)
			}
		}
	})
}

func FuzzHTTPFraming(f *testing.F) {
	for _, version := range []string{"", "2025-06-18", "2026-07-28"} {
		for _, msg := range append(append([]string{}, provocations...), framingProvocations...) {
			f.Add(version, []byte(msg))
		}
	}
	var (
		once sync.Once
		h    http.Handler
	)
	f.Fuzz(func(t *testing.T, version string, body []byte) {
		once.Do(func() { h = fuzzServer(t).server.Handler() })
		req := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if version != "" {
			req.Header["Mcp-Protocol-Version"] = []string{version}
		}
		ctx, cancel := context.WithTimeout(req.Context(), 10*time.Second)
		defer cancel()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req.WithContext(ctx))
		resp := rec.Body.Bytes()
		for k, vs := range rec.Header() {
			if strings.Contains(k+strings.Join(vs, ","), fuzzCanary) {
				t.Fatalf("the header %s quotes the canary", k)
			}
		}
		if rec.Code == http.StatusAccepted && len(resp) == 0 {
			return
		}
		if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
			t.Fatalf("status %d with Content-Type %q: %q", rec.Code, ct, resp)
		}
		if why := checkResponse(resp); why != "" {
			t.Fatalf("status %d: %s: %q", rec.Code, why, resp)
		}
	})
}
