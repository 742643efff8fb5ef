package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"

	"sutura.dev/app/wire"
)

// FailureCode is the stable code of a failure body: something went wrong
// that is not a refusal (product.md §5). Codes are part of the contract.
type FailureCode string

// Every failure code the HTTP surface writes, with its status in
// failureStatus.
const (
	Unauthorized        FailureCode = "unauthorized"
	InsufficientScope   FailureCode = "insufficient_scope"
	ToolNotEnabled      FailureCode = "tool_not_enabled"
	HostNotAllowed      FailureCode = "host_not_allowed"
	NotAQuestion        FailureCode = "not_a_question"
	TooLarge            FailureCode = "too_large"
	RateLimited         FailureCode = "rate_limited"
	Timeout             FailureCode = "timeout"
	Internal            FailureCode = "internal"
	Unavailable         FailureCode = "unavailable"
	IdentityUnavailable FailureCode = "identity_unavailable"
	AtCapacity          FailureCode = "at_capacity"
	// ZeroDenominator: a ratio metric declared zero_denominator: fails met
	// a zero denominator; the answer does not exist for this question.
	ZeroDenominator FailureCode = "zero_denominator"
	// NotFound and MethodNotAllowed answer requests outside the route table.
	NotFound         FailureCode = "not_found"
	MethodNotAllowed FailureCode = "method_not_allowed"
)

// UnsupportedMediaType is the failure of a POST whose Content-Type is not
// application/json, refused before its body is read: a browser sends a
// cross-site POST without a preflight only with a form or text type.
const UnsupportedMediaType FailureCode = "unsupported_media_type"

// failureStatus is the one table of failure codes and their statuses, in
// the order of product.md §5 then the codes this surface adds.
var failureStatus = []struct {
	code   FailureCode
	status int
}{
	{Unauthorized, http.StatusUnauthorized},
	{InsufficientScope, http.StatusForbidden},
	{ToolNotEnabled, http.StatusForbidden},
	{HostNotAllowed, http.StatusForbidden},
	{NotAQuestion, http.StatusBadRequest},
	{TooLarge, http.StatusRequestEntityTooLarge},
	{UnsupportedMediaType, http.StatusUnsupportedMediaType},
	{RateLimited, http.StatusTooManyRequests},
	{Timeout, http.StatusRequestTimeout},
	{Internal, http.StatusInternalServerError},
	{Unavailable, http.StatusServiceUnavailable},
	{IdentityUnavailable, http.StatusServiceUnavailable},
	{AtCapacity, http.StatusServiceUnavailable},
	{ZeroDenominator, http.StatusUnprocessableEntity},
	{NotFound, http.StatusNotFound},
	{MethodNotAllowed, http.StatusMethodNotAllowed},
}

// FailureCodes returns every failure code, in the order of the contract.
func FailureCodes() []FailureCode {
	out := make([]FailureCode, len(failureStatus))
	for i, f := range failureStatus {
		out[i] = f.code
	}
	return out
}

// Status returns the HTTP status of the code, or 0 for an unknown code.
func (c FailureCode) Status() int {
	for _, f := range failureStatus {
		if f.code == c {
			return f.status
		}
	}
	return 0
}

// The fixed sentences of failures of the gates. Those of a question's
// failures (at capacity, timeout, unavailable, internal, zero denominator)
// are app/wire's, shared with every transport. None holds a caller value or
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
		body, _ = json.Marshal(failureBody{Code: Internal, Status: status, Detail: wire.TextInternal})
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
