package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"

	"sutura.dev/app"
)

// FailureCode is the stable code of a failure body: something went wrong
// that is not a refusal (docs/contract.md §5). The codes, their statuses and
// sentences are the surface's one table (app.FailureCode), shared with the
// audit record and every other transport; this package only writes them.
type FailureCode = app.FailureCode

// Every failure code the HTTP surface writes (app's, by their HTTP names).
const (
	Unauthorized      = app.CodeUnauthorized
	InsufficientScope = app.CodeInsufficientScope
	ToolNotEnabled    = app.CodeToolNotEnabled
	HostNotAllowed    = app.CodeHostNotAllowed
	NotAQuestion      = app.CodeNotAQuestion
	TooLarge          = app.CodeTooLarge
	// UnsupportedMediaType is the failure of a POST whose Content-Type is
	// not application/json, refused before its body is read: a browser
	// sends a cross-site POST without a preflight only with a form or text
	// type.
	UnsupportedMediaType = app.CodeUnsupportedMediaType
	RateLimited          = app.CodeRateLimited
	Timeout              = app.CodeTimeout
	Internal             = app.CodeInternal
	Unavailable          = app.CodeUnavailable
	IdentityUnavailable  = app.CodeIdentityUnavailable
	AtCapacity           = app.CodeAtCapacity
	ZeroDenominator      = app.CodeZeroDenominator
	StatementFailed      = app.CodeStatementFailed
	NotFound             = app.CodeNotFound
	MethodNotAllowed     = app.CodeMethodNotAllowed
)

// FailureCodes returns every failure code this surface writes: the
// surface's table without the codes that are never written (cancelled: a
// caller that went away gets nothing), in the table's order.
func FailureCodes() []FailureCode {
	var out []FailureCode
	for _, c := range app.FailureCodes() {
		if c.Status() != 0 {
			out = append(out, c)
		}
	}
	return out
}

// The fixed sentences of failures of the gates. Those of a call's failures
// (at capacity, timeout, unavailable, internal, zero denominator) are the
// surface's, shared with every transport. None holds a caller value or
// a data system's text.
const (
	textTooLarge = "the request body is larger than this server accepts"
	textNotReady = "the service is not ready: the catalogue is not pinned or a source is not open yet"
)

// failureBody is the wire shape of a failure: {code, status, detail}.
type failureBody struct {
	Code   FailureCode `json:"code"`
	Status int         `json:"status"`
	Detail string      `json:"detail"`
}

// writeFailure writes the failure body of code with detail. Headers the
// failure needs (WWW-Authenticate, Retry-After) are set by the caller first.
func writeFailure(w http.ResponseWriter, code FailureCode, detail string) {
	status := code.Status()
	writeJSON(w, status, failureBody{Code: code, Status: status, Detail: detail})
}

// writeRetry writes a failure with a Retry-After of seconds.
func writeRetry(w http.ResponseWriter, code FailureCode, seconds int, detail string) {
	w.Header().Set("Retry-After", strconv.Itoa(max(seconds, 1)))
	writeFailure(w, code, detail)
}

// writeJSON writes v as the JSON body with status. Bodies are never
// cached: they depend on who asks.
func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		body, _ = json.Marshal(failureBody{Code: Internal, Status: status, Detail: app.TextInternal})
	}
	writeBytes(w, status, "application/json", body)
}

func writeBytes(w http.ResponseWriter, status int, contentType string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("X-Content-Type-Options", "nosniff")
	if h.Get("Cache-Control") == "" {
		h.Set("Cache-Control", "no-store")
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
