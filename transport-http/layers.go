package httpapi

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"io"
	"log/slog"
	"math"
	"mime"
	"net"
	"net/http"
	"regexp"
	"strings"
	"time"

	"sutura.dev/app"
	"sutura.dev/domain"
)

// Header names of the surface.
const (
	// CorrelationHeader carries a caller's correlation id; a well-formed
	// one is adopted, otherwise one is minted. The response carries it
	// too. It goes into logs and audit records, never into a body.
	CorrelationHeader = "X-Correlation-Id"
	// AccessTokenHeader carries the deployment access token when inbound
	// identity is configured, since Authorization then carries the
	// caller's JWT.
	AccessTokenHeader = "X-Sutura-Access-Token"
	// ResourceMetadataPath is the RFC 9728 protected resource metadata,
	// served in direct mode.
	ResourceMetadataPath = "/.well-known/oauth-protected-resource"
)

// correlationPattern is what a caller's correlation id must look like to
// be adopted (with at most maxCorrelationID bytes, see adoptable): it ends
// up in logs and audit records.
var correlationPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:-]*$`)

// maxCorrelationID is the longest correlation id adopted. It is checked
// apart from the pattern: a bounded repetition compiles to a program of
// one copy per repetition, paid at every process start.
const maxCorrelationID = 128

// adoptable reports whether a caller's correlation id is adopted.
func adoptable(id string) bool {
	return len(id) <= maxCorrelationID && correlationPattern.MatchString(id)
}

// requestState travels in a request's context from the outermost layer:
// the route it matched, its correlation id and its response status.
type requestState struct {
	route         string
	correlationID string
	rec           *recorder
	// rateKey is the client address the request's rate is reckoned by
	// (clientAddress); charged says a bucket has paid for the request.
	// A gated request that presents a credential is charged only once the
	// gates know whether it holds (settleRate), so that traffic without a
	// valid credential cannot spend the buckets of callers with one.
	rateKey string
	charged bool
}

type stateKey struct{}

func stateOf(ctx context.Context) *requestState {
	if st, ok := ctx.Value(stateKey{}).(*requestState); ok {
		return st
	}
	return &requestState{route: "other"}
}

// recorder notes the status of a response. It unwraps, so that
// http.ResponseController reaches the connection through it.
type recorder struct {
	http.ResponseWriter
	status int
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 && code >= 200 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// finalStatus is the status the request ended with; 499 when nothing was
// written because the client went away.
func (st *requestState) finalStatus(ctx context.Context) int {
	switch {
	case st.rec.status != 0:
		return st.rec.status
	case ctx.Err() != nil:
		return 499
	}
	return http.StatusOK
}

// observe is the outermost layer: it counts every request by route and
// status.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		st := &requestState{route: "other", rec: &recorder{ResponseWriter: w}}
		r = r.WithContext(context.WithValue(r.Context(), stateKey{}, st))
		next.ServeHTTP(st.rec, r)
		s.metrics.observeRequest(st.route, st.finalStatus(r.Context()), time.Since(start))
	})
}

// trace gives the request its correlation id and writes its span: one log
// line with the route, status and duration.
func (s *Server) trace(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		st := stateOf(r.Context())
		st.correlationID = r.Header.Get(CorrelationHeader)
		if !adoptable(st.correlationID) {
			st.correlationID = rand.Text()
		}
		w.Header().Set(CorrelationHeader, st.correlationID)
		next.ServeHTTP(w, r)
		status := http.StatusOK
		if st.rec != nil {
			status = st.finalStatus(r.Context())
		}
		level := slog.LevelDebug
		if status >= 500 {
			level = slog.LevelWarn
		}
		s.log.Log(r.Context(), level, "http request", "correlation_id", st.correlationID, "route", st.route,
			"status", status, "duration_ms", float64(time.Since(start).Microseconds())/1000)
	})
}

// timeout bounds the request: its context ends after the request timeout,
// which cancels the work it started (admission wait included).
func (s *Server) timeout(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), s.cfg.Surface.RequestTimeout())
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// rateLimit reckons the request's client address (clientAddress) and,
// unless the request is gated and presents a credential the gates check,
// takes a token from that address's bucket before anything costly runs.
// A gated request with a credential is charged by the gates once they
// know whether it holds (settleRate, refuseRate): an authenticated caller
// only to its own bucket, so that a flood without a valid credential from
// the same address — every caller behind one proxy — cannot starve it.
func (s *Server) rateLimit(gated bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := stateOf(r.Context())
		st.rateKey = addressKey(s.clientAddress(r))
		if !gated || !s.presentsCredential(r) {
			st.charged = true
			if ok, wait := s.limiter.allow(anonymousKey(st.rateKey)); !ok {
				writeRetry(w, RateLimited, int(math.Ceil(wait.Seconds())), "too many requests from this address; slow down")
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// presentsCredential reports whether r carries a credential that this
// server's gates check: the deployment token or an inbound identity's
// bearer token. A credential nobody checks buys nothing.
func (s *Server) presentsCredential(r *http.Request) bool {
	switch {
	case s.verifier != nil:
		_, ok := bearer(r)
		return ok || r.Header.Get(AccessTokenHeader) != ""
	case s.accessDigest != nil:
		_, ok := bearer(r)
		return ok
	}
	return false
}

// refuseRate charges a request whose credential did not hold to its
// address's bucket, as if it had presented none; when that bucket is
// empty it writes rate_limited instead of the refusal and returns false.
func (s *Server) refuseRate(w http.ResponseWriter, r *http.Request) bool {
	st := stateOf(r.Context())
	if st.charged {
		return true
	}
	st.charged = true
	if ok, wait := s.limiter.allow(anonymousKey(st.rateKey)); !ok {
		writeRetry(w, RateLimited, int(math.Ceil(wait.Seconds())), "too many requests from this address; slow down")
		return false
	}
	return true
}

// settleRate charges a request whose credential held and that no bucket
// has paid for yet: with inbound identity, to the bucket of its subject;
// with the deployment token alone, which names no caller, to a bucket of
// its address kept apart from the address's unauthenticated traffic. It
// writes rate_limited and returns false when that bucket is empty.
func (s *Server) settleRate(w http.ResponseWriter, r *http.Request, p *domain.Principal) bool {
	st := stateOf(r.Context())
	if st.charged {
		return true
	}
	st.charged = true
	if p != nil {
		if ok, wait := s.principals.allow(p.Subject); !ok {
			writeRetry(w, RateLimited, int(math.Ceil(wait.Seconds())), "too many requests from this caller; slow down")
			return false
		}
		return true
	}
	if ok, wait := s.limiter.allow(tokenKey(st.rateKey)); !ok {
		writeRetry(w, RateLimited, int(math.Ceil(wait.Seconds())), "too many requests from this address; slow down")
		return false
	}
	return true
}

// hostAllow refuses a Host header that does not name this server, which
// is what a DNS-rebinding page sends.
func (s *Server) hostAllow(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.hostAllowed(r.Host) {
			writeFailure(w, HostNotAllowed, "this server does not answer to the host this request names; an operator can add it to server.allowed_hosts")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// bearer returns the token of an "Authorization: Bearer" header.
func bearer(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// sameSecret compares a presented secret with a digest in constant time.
func sameSecret(presented string, digest *[32]byte) bool {
	d := sha256.Sum256([]byte(presented))
	return subtle.ConstantTimeCompare(d[:], digest[:]) == 1
}

// challenge sets WWW-Authenticate: the bearer challenge of RFC 6750, with
// the resource metadata of RFC 9728 in direct mode.
func (s *Server) challenge(w http.ResponseWriter, r *http.Request, params ...string) {
	ps := append([]string{`realm="sutura"`}, params...)
	if s.verifier != nil {
		ps = append(ps, `resource_metadata="`+s.resource(r)+ResourceMetadataPath+`"`)
	}
	w.Header().Set("WWW-Authenticate", "Bearer "+strings.Join(ps, ", "))
}

// resource is this server's resource identifier: the configured one, or
// the base URL of the request (https off loopback, where a proxy
// terminates TLS).
func (s *Server) resource(r *http.Request) string {
	if res := s.cfg.Inbound.Resource; res != "" {
		return strings.TrimSuffix(res, "/")
	}
	scheme := "https"
	if host, _ := splitHost(r.Host); r.TLS == nil && isLoopbackName(host) {
		scheme = "http"
	}
	return scheme + "://" + r.Host
}

// accessToken checks the deployment bearer token.
func (s *Server) accessToken(next http.Handler) http.Handler {
	if s.accessDigest == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := bearer(r)
		where := "Authorization: Bearer"
		if s.verifier != nil {
			token, where = r.Header.Get(AccessTokenHeader), AccessTokenHeader
			ok = token != ""
		}
		if !ok || !sameSecret(token, s.accessDigest) {
			if !s.refuseRate(w, r) {
				return
			}
			if ok {
				s.challenge(w, r, `error="invalid_token"`)
			} else {
				s.challenge(w, r)
			}
			writeFailure(w, Unauthorized, "the deployment access token is missing or wrong; send it in "+where)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// identity establishes the caller and puts it in the request's context.
func (s *Server) identity(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var p domain.Principal
		switch {
		case s.verifier != nil:
			token, ok := bearer(r)
			if !ok {
				if !s.refuseRate(w, r) {
					return
				}
				s.challenge(w, r)
				writeFailure(w, Unauthorized, "a bearer token (a JWT from the identity provider) is required")
				return
			}
			var err error
			p, err = s.verifier.verify(r.Context(), token)
			var te *tokenError
			switch {
			case errors.As(err, &te):
				if !s.refuseRate(w, r) {
					return
				}
				s.log.Debug("http: token refused", "correlation_id", stateOf(r.Context()).correlationID, "reason", te.reason)
				s.challenge(w, r, `error="invalid_token"`)
				writeFailure(w, Unauthorized, te.Error())
				return
			case err != nil:
				s.log.Warn("http: identity unavailable", "correlation_id", stateOf(r.Context()).correlationID, "error", err)
				writeRetry(w, IdentityUnavailable, int(RefetchInterval.Seconds()), "caller identity cannot be checked now: the identity provider's keys could not be read; ask again later")
				return
			}
			if !s.settleRate(w, r, &p) {
				return
			}
		case s.cfg.SingleUser:
			p = domain.LocalOperator
			p.Scopes = s.scopes
		default:
			p = domain.Principal{Subject: "anonymous", Scopes: s.scopes}
		}
		if !s.settleRate(w, r, nil) {
			return
		}
		c := app.Caller{Principal: p, CorrelationID: stateOf(r.Context()).correlationID, Transport: "http",
			Trace: inboundTrace(r.Header)}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), callerKey{}, c)))
	})
}

type callerKey struct{}

// CallerFrom returns the caller the gates established for the request
// whose context is ctx (or a context derived from it): its principal and
// correlation id. It has the signature of mcpserver.Options.Caller, so the
// MCP handler mounted at /mcp answers as the caller the gates admitted.
// Outside a gated request it returns the anonymous principal with no scope
// and no audience, which may do nothing: it fails closed.
func CallerFrom(ctx context.Context) app.Caller {
	if c, ok := ctx.Value(callerKey{}).(app.Caller); ok {
		return c
	}
	return app.Caller{Principal: domain.Principal{Subject: "anonymous"}}
}

// capability asks the surface whether the caller may call the route's
// capability (app.Surface.Permit: enablement, then scope), so that the
// decision is app's, for every transport alike, and a refused request is
// answered before its body is read. The empty capability (/mcp) needs a
// tool the caller may call; which one is the surface's to decide per call.
func (s *Server) capability(c domain.Capability, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		caller := gatedCaller(r.Context())
		if c == "" {
			for _, t := range s.tools {
				if s.cfg.Surface.Permit(caller, t.ID) == nil {
					next.ServeHTTP(w, r)
					return
				}
			}
			s.challenge(w, r, `error="insufficient_scope"`, `scope="`+strings.Join(s.scopes, " ")+`"`)
			writeFailure(w, InsufficientScope, "this endpoint needs the scope of at least one tool: "+strings.Join(s.scopes, ", "))
			return
		}
		f := s.cfg.Surface.Permit(caller, c)
		if f == nil {
			next.ServeHTTP(w, r)
			return
		}
		if f.Code == InsufficientScope {
			s.challenge(w, r, `error="insufficient_scope"`, `scope="`+string(s.toolScope(c))+`"`)
		}
		writeFailure(w, f.Code, f.Detail)
	})
}

// gatedCaller is the caller the gates established for the request of
// ctx. Its scopes are what it may call (app.Caller.Scoped): the
// deployment's every scope for the local operator and the anonymous
// caller, the token's for an inbound identity.
func gatedCaller(ctx context.Context) app.Caller {
	c := CallerFrom(ctx)
	c.Scoped = true
	return c
}

// toolScope is the scope that grants tool c on this server.
func (s *Server) toolScope(c domain.Capability) string {
	for _, t := range s.tools {
		if t.ID == c {
			return string(t.Scope)
		}
	}
	return ""
}

// bodyLimit refuses a body that is not declared JSON, then reads the
// whole body, at most MaxBodyBytes, within the request's deadline, and
// hands it on from memory: a slow or oversized body is refused before any
// work starts.
func (s *Server) bodyLimit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if carriesBody(r) && !declaresJSON(r.Header) {
			// Before a byte of the body is read; the connection is not
			// reused, so the unread body is never parsed as a request.
			w.Header().Set("Connection", "close")
			writeFailure(w, UnsupportedMediaType, textNotJSON)
			return
		}
		if r.ContentLength > s.cfg.MaxBodyBytes {
			writeFailure(w, TooLarge, textTooLarge)
			return
		}
		rc := http.NewResponseController(w)
		if d, ok := r.Context().Deadline(); ok {
			_ = rc.SetReadDeadline(d)
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes))
		if err != nil {
			// The deadline stays: the server must not wait for the rest of
			// a body that did not come. The connection is not reused.
			w.Header().Set("Connection", "close")
			var tooLarge *http.MaxBytesError
			var netErr net.Error
			switch {
			case errors.As(err, &tooLarge):
				writeFailure(w, TooLarge, textTooLarge)
			case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout()):
				writeFailure(w, Timeout, "the request body did not arrive within the request timeout")
			default:
				writeFailure(w, NotAQuestion, "the request body could not be read")
			}
			return
		}
		// The deadline is lifted once the body is in: left in place it
		// would end the connection while the answer is being worked out.
		_ = rc.SetReadDeadline(time.Time{})
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		next.ServeHTTP(w, r)
	})
}

// textNotJSON is the detail of unsupported_media_type.
const textNotJSON = "the body must be sent as Content-Type: application/json"

// carriesBody reports whether r is a POST (or PUT, PATCH) or announces a
// body of any length.
func carriesBody(r *http.Request) bool {
	switch r.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch:
		return true
	}
	return r.ContentLength != 0
}

// declaresJSON reports whether the Content-Type is application/json (with
// parameters such as charset, in any case). The types a browser may send
// cross-site without a preflight (none, text/plain, a form) are not, nor
// is anything else: a cross-site page that could set application/json has
// been through a preflight, which this server never grants.
func declaresJSON(h http.Header) bool {
	ct := h.Values("Content-Type")
	if len(ct) != 1 {
		return false
	}
	mt, _, err := mime.ParseMediaType(ct[0])
	return err == nil && mt == "application/json"
}

// metricsToken checks the bearer token of /metrics.
func (s *Server) metricsToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := bearer(r)
		if !ok || !sameSecret(token, s.metricsHash) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="sutura-metrics"`)
			writeFailure(w, Unauthorized, "the metrics token is missing or wrong; send it in Authorization: Bearer")
			return
		}
		next.ServeHTTP(w, r)
	})
}
