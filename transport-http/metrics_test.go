package httpapi

import (
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMetricsNeedTheirOwnToken(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{cfg: Config{AccessToken: []byte("access"), MetricsToken: []byte("metrics")}})
	requireFailure(t, e.do(t, request{path: "/metrics"}), Unauthorized)
	requireFailure(t, e.do(t, request{path: "/metrics", header: map[string]string{"Authorization": "Bearer access"}}), Unauthorized)
	r := e.do(t, request{path: "/metrics", header: map[string]string{"Authorization": "Bearer metrics"}})
	require.Equal(t, http.StatusOK, r.status)
	assert.Contains(t, r.header.Get("Content-Type"), "text/plain")

	none := newEnv(t, newFake(), envConfig{})
	requireFailure(t, none.do(t, request{path: "/metrics"}), NotFound)
}

// TestMetricsCarryNoQuestionValueOrIdentity drives answers, refusals and
// failures from a named caller with planted values, then checks every
// metric and label the scrape shows.
func TestMetricsCarryNoQuestionValueOrIdentity(t *testing.T) {
	idp := newIdentityProvider(t)
	e := idp.env(t, envConfig{max: 1, cfg: Config{MetricsToken: []byte("metrics")}})
	who := idp.bearer(t, withClaim(idp.claims("alice-"+canary, scopeCatalog, scopeAsk), "groups", []string{"finance"}))
	who[CorrelationHeader] = "corr-" + canary
	require.Equal(t, http.StatusOK, e.ask(t, qAnswer, who).status)
	requireRefusal(t, e.ask(t, qBadValue, who), "dimension_value_not_allowed")
	requireFailure(t, e.ask(t, `{"metrics":["`+canary+`"],"grain":"month"}`, who), NotAQuestion)
	requireFailure(t, e.do(t, request{path: "/v1/" + canary}), NotFound)
	release, err := e.adm.Acquire(t.Context())
	require.NoError(t, err)
	requireFailure(t, e.ask(t, qAnswer, who), AtCapacity)
	release()

	r := e.do(t, request{path: "/metrics", header: map[string]string{"Authorization": "Bearer metrics"}})
	require.Equal(t, http.StatusOK, r.status)
	text := string(r.body)
	for _, forbidden := range []string{canary, "alice", "corr-", "revenue", "Lyon", "2025-01-01"} {
		assert.NotContains(t, text, forbidden)
	}
	for _, want := range []string{
		`sutura_http_requests_total{route="POST /v1/query",status="200"} 1`,
		`sutura_http_requests_total{route="POST /v1/query",status="403"} 1`,
		`sutura_http_requests_total{route="other",status="404"} 1`,
		`sutura_outcomes_total{capability="ask_metric",code="",outcome="answer"} 1`,
		`sutura_outcomes_total{capability="ask_metric",code="dimension_value_not_allowed",outcome="refusal"} 1`,
		`sutura_outcomes_total{capability="ask_metric",code="at_capacity",outcome="failure"} 1`,
		`sutura_admission_shed_total 1`,
		`sutura_admission_in_flight 0`,
		`sutura_admission_capacity 1`,
		`sutura_question_duration_seconds_count{outcome="answer"} 1`,
		`sutura_build_info{goversion="`,
		`go_goroutines`,
	} {
		assert.Contains(t, text, want)
	}
	// Every label of sutura's own metrics is one of a closed set of names.
	labels := regexp.MustCompile(`([a-z_]+)="`)
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, "sutura_") {
			continue
		}
		for _, m := range labels.FindAllStringSubmatch(line, -1) {
			assert.Contains(t, []string{"route", "status", "capability", "outcome", "code", "version", "goversion", "le", "audience"}, m[1], line)
		}
	}
}

func TestOutcomeLabelsAreClosed(t *testing.T) {
	m, err := NewMetrics(MetricsConfig{})
	require.NoError(t, err)
	m.observeOutcome("ask_metric", "refusal", canary, time.Millisecond)
	m.observeOutcome("ask_metric", "failure", canary, time.Millisecond)
	m.observeOutcome(canary, canary, canary, time.Millisecond)
	mfs, err := m.reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		for _, metric := range mf.GetMetric() {
			for _, l := range metric.GetLabel() {
				assert.NotContains(t, l.GetValue(), canary)
				assert.False(t, slices.Contains([]string{"subject", "question", "value", "correlation_id"}, l.GetName()))
			}
		}
	}
}
