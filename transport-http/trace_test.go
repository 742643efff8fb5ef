package httpapi

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app/trace"
	"sutura.dev/domain"
)

func TestInboundTrace(t *testing.T) {
	tp := "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	for name, tc := range map[string]struct {
		h    http.Header
		want trace.Remote
	}{
		"none":          {http.Header{}, trace.Remote{}},
		"both":          {http.Header{"Traceparent": {tp}, "Tracestate": {"a=1"}}, trace.Remote{Parent: tp, State: "a=1"}},
		"sent twice":    {http.Header{"Traceparent": {tp, tp}}, trace.Remote{}},
		"state, alone":  {http.Header{"Tracestate": {"a=1"}}, trace.Remote{}},
		"passed as got": {http.Header{"Traceparent": {"zz"}}, trace.Remote{Parent: "zz"}},
	} {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tc.want, inboundTrace(tc.h))
		})
	}
}

// TestStatementsNeedTheScopeOverHTTP: a caller whose token lacks
// sutura:sql.read gets an explanation without statements; one holding it
// gets them (none here: the fake runs no SQL).
func TestStatementsNeedTheScopeOverHTTP(t *testing.T) {
	idp := newIdentityProvider(t)
	e := idp.env(t, envConfig{})
	for _, tc := range []struct {
		scopes []string
		reads  bool
	}{
		{[]string{scopeAsk}, false},
		{[]string{scopeAsk, domain.ScopeSQLRead}, true},
	} {
		header := auth(mint(t, RS256, "rsa-1", idp.claims("alice", tc.scopes...)))
		r := e.ask(t, qAnswer, header)
		require.Equal(t, http.StatusOK, r.status, string(r.body))
		explanation := r.json(t)["explanation"].(map[string]any)
		_, has := explanation["statements"]
		assert.Equal(t, tc.reads, has, "scopes %v", tc.scopes)
	}
}
