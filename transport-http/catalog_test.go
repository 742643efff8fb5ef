package httpapi

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app"
	"sutura.dev/app/apptest"
	"sutura.dev/domain"
)

// GET /v1/catalog takes describe_catalog's arguments as query parameters
// (docs/contract.md §14), over a real socket.
func TestCatalogQueryParameters(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{anonymous: true})
	m := e.do(t, request{path: "/v1/catalog?search=revenue"}).json(t)
	assert.Len(t, m["summaries"], 1, "a search lists summaries; the anonymous caller does not see secret_revenue")
	assert.EqualValues(t, 1, m["total"])

	r := e.do(t, request{path: "/v1/catalog?metrics=revenue"})
	require.Equal(t, 200, r.status, string(r.body))
	assert.Len(t, r.json(t)["metrics"], 1)

	hidden := e.do(t, request{path: "/v1/catalog?metrics=secret_revenue"})
	unknown := e.do(t, request{path: "/v1/catalog?metrics=no_such"})
	requireRefusal(t, hidden, domain.MetricUnknown)
	requireRefusal(t, unknown, domain.MetricUnknown)

	for path, field := range map[string]string{
		"/v1/catalog?search=" + url.QueryEscape(canary+"\u200b"): "search",
		"/v1/catalog?cursor=" + canary:                           "cursor",
		"/v1/catalog?verbose=" + canary:                          "verbose",
		"/v1/catalog?search=a&search=" + canary:                  "search",
		"/v1/catalog?metrics=a," + url.QueryEscape(canary):       "metrics[1]",
		"/v1/catalog?" + url.QueryEscape(canary+" x") + "=1":     "(a field whose name is not an identifier)",
	} {
		f := requireFailure(t, e.do(t, request{path: path}), NotAQuestion)
		assert.Contains(t, f["detail"], field, path)
	}
	requireFailure(t, e.do(t, request{path: "/v1/catalog?a=%zz"}), NotAQuestion)
}

func TestCatalogPagesOverHTTP(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{bundle: apptest.ScaleBundle(t, "v1", 1000, 40), noSource: true})
	seen, cursor := 0, ""
	for {
		path := "/v1/catalog"
		if cursor != "" {
			path += "?cursor=" + url.QueryEscape(cursor)
		}
		r := e.do(t, request{path: path})
		require.Equal(t, 200, r.status, string(r.body))
		assert.LessOrEqual(t, len(r.body), app.MaxCatalogBytes)
		m := r.json(t)
		seen += len(m["summaries"].([]any))
		assert.EqualValues(t, 1000, m["total"], "the local operator sees every metric")
		next, _ := m["next_cursor"].(string)
		if next == "" {
			break
		}
		cursor = next
	}
	assert.Equal(t, 1000, seen)
}
