package main

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/app/apptest"
	"sutura.dev/domain"
)

// catalogQueries lists the query strings of the page's GET /v1/catalog
// requests, in order ("" for none).
func (p *page) catalogQueries() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, r := range p.requests {
		if u, err := url.Parse(r); err == nil && u.Host == p.base.Host && u.Path == "/v1/catalog" {
			out = append(out, u.RawQuery)
		}
	}
	return out
}

// TestUIAtCatalogueScale walks the catalogue browser on a generated
// catalogue of 400 metrics (apptest.ScaleDefinitions, written as markdown
// and CSV), which describe_catalog lists as summaries over several 64 KiB
// pages (docs/contract.md §14): every metric is listed, one past the first
// page opens with its dimensions and allowed values, a question built on
// it equals /v1/query's answer, and the search is the server's ranking.
func TestUIAtCatalogueScale(t *testing.T) {
	const metrics, models = 400, 20
	s := serve(t, "SUTURA_CONFIG_DIR="+writeScaleCatalogue(t, metrics, models))
	p := newPage(t, s.base)
	shots := artefacts(t)

	// The server lists summaries, over more than one page.
	code, _, body := s.do(t, "GET", "/v1/catalog", "")
	require.Equal(t, 200, code, body)
	var first struct {
		Metrics   []json.RawMessage `json:"metrics"`
		Summaries []struct {
			Name string `json:"name"`
		} `json:"summaries"`
		Total      int    `json:"total"`
		NextCursor string `json:"next_cursor"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &first))
	require.Empty(t, first.Metrics, "summaries, not full entries")
	require.NotEmpty(t, first.NextCursor, "the listing has more than one page")
	require.Equal(t, metrics, first.Total)
	onFirst := map[string]bool{}
	for _, m := range first.Summaries {
		onFirst[m.Name] = true
	}
	defs, _ := apptest.ScaleDefinitions(metrics, models)
	var target domain.Metric
	for _, m := range defs.Metrics {
		if !onFirst[m.Name] && m.Audience.Open() {
			target = m
		}
	}
	require.NotEmpty(t, target.Name, "a metric past the first page")
	dim, filter := target.Dimensions[0], target.Dimensions[1]

	// Every metric is listed, with its summary.
	p.open("/", "#search")
	p.waitFor(fmt.Sprintf(`document.querySelectorAll(".cards .card").length === %d`, metrics), "every metric listed")
	card := fmt.Sprintf(`.cards .card:has(a[href="#/metric/%s"])`, target.Name)
	assert.Contains(t, p.text(card), strings.SplitN(target.Description, ".", 2)[0], "the card shows the summary")
	assert.Contains(t, p.text(card), dim.Name)
	assert.Contains(t, p.text("#search-status"), fmt.Sprintf("%d metrics", metrics))
	assert.Empty(t, p.unlabelled())
	p.screenshot(shots, "scale-catalogue")

	// The metric opens with its dimensions and allowed values.
	p.click(card + " h2 a")
	p.waitFor(`document.querySelector("h1") && document.querySelector("h1").innerText === `+js(target.Name), "the metric page")
	page := p.text("#view")
	for _, want := range []string{"happened_on", target.Model, dim.Name, dim.Values[0], dim.Values[7], filter.Name, filter.Values[3],
		target.Dimensions[2].Name, "group by only"} {
		assert.Contains(t, page, want)
	}
	p.screenshot(shots, "scale-metric")

	// A question on it, built with the page's controls.
	p.click(`a.button-link[href^="#/ask"]`)
	p.waitFor(`document.querySelector("#builder input[name=metric][value=`+target.Name+`]:checked")`, "the builder with the metric")
	p.waitFor(`document.querySelector("input[name=dimension][value=`+dim.Name+`]")`, "its dimensions")
	assert.Equal(t, 1, eval[int](p, `[...document.querySelectorAll("#builder .metric-list .check")].filter((c) => c.checkVisibility()).length`),
		"the chosen metric only, until all are asked for")
	p.click("#metric-all")
	p.waitFor(`[...document.querySelectorAll("#builder .metric-list .check")].filter((c) => c.checkVisibility()).length === `+fmt.Sprint(metrics), "every metric")
	p.waitFor(`(() => { const l = document.querySelector(".metric-list").getBoundingClientRect();
		const b = document.querySelector("input[name=metric][value=`+target.Name+`]").getBoundingClientRect();
		return b.top >= l.top && b.bottom <= l.bottom; })()`, "the chosen metric in the list's view")
	p.setValue("#grain", "month")
	p.setValue("#range-start", "2025-01-01")
	p.setValue("#range-end", "2025-07-01")
	p.click(`input[name=dimension][value=` + dim.Name + `]`)
	p.click(`input[name="filter-` + filter.Name + `"][value=` + filter.Values[2] + `]`)
	question := p.text("#question-json")
	assert.JSONEq(t, fmt.Sprintf(`{"metrics":[%q],"grain":"month","range":{"start":"2025-01-01","end":"2025-07-01"},
		"dimensions":[%q],"filters":[{"op":"eq","dimension":%q,"value":%q}]}`, target.Name, dim.Name, filter.Name, filter.Values[2]), question)
	p.click("#ask")
	p.waitFor(`document.querySelector("#answer-table tbody tr")`, "the answer table")
	code, _, direct := s.do(t, "POST", "/v1/query", question)
	require.Equal(t, 200, code, direct)
	var want answerBody
	require.NoError(t, json.Unmarshal([]byte(direct), &want))
	require.NotEmpty(t, want.Rows)
	assert.Equal(t, want.cells(), p.tableRows(), "the table holds exactly the rows of /v1/query")
	p.screenshot(shots, "scale-answer")

	// A metric on another model is refused by a sentence, the list narrows.
	var other domain.Metric
	for _, m := range defs.Metrics {
		if m.Model != target.Model && m.Audience.Open() {
			other = m
			break
		}
	}
	p.typeInto("#metric-find", other.Name)
	p.waitFor(`[...document.querySelectorAll("#builder .metric-list .check")].filter((c) => c.checkVisibility()).length === 2`,
		"the list narrowed to it and the chosen one")
	p.click(`input[name=metric][value=` + other.Name + `]`)
	p.waitFor(`document.getElementById("metrics-hint").innerText.includes("another model")`, "the sentence saying why")
	assert.False(t, eval[bool](p, `document.querySelector("input[name=metric][value=`+other.Name+`]").checked`))
	assert.JSONEq(t, question, p.text("#question-json"), "the question is unchanged")

	// The search box finds a metric by its name, ranked by the server.
	p.click(`nav a[data-route=catalog]`)
	p.waitFor(fmt.Sprintf(`document.querySelectorAll(".cards .card").length === %d`, metrics), "the catalogue again")
	p.typeInto("#search", target.Name)
	p.waitFor(fmt.Sprintf(`document.querySelectorAll(".cards .card").length < %d && document.querySelector(".cards .card h2").innerText === %s`, metrics, js(target.Name)),
		"the metric first among the matches")
	assert.Contains(t, p.text("#search-status"), "match")

	// With the keyboard only: from the search to an answer.
	key := func(k string) { p.do(chromedp.KeyEvent(k)) }
	tabTo := func(cond, what string) {
		t.Helper()
		for range 80 {
			if eval[bool](p, "Boolean((() => { const el = document.activeElement; return "+cond+"; })())") {
				return
			}
			key("\t")
		}
		t.Fatalf("Tab never reached %s", what)
	}
	tabTo(`el.getAttribute("href") === "#/metric/`+target.Name+`"`, "the metric's link")
	key("\r")
	p.waitFor(`document.querySelector("h1") && document.querySelector("h1").innerText === `+js(target.Name), "the metric page")
	tabTo(`el.classList.contains("button-link") && el.getAttribute("href").startsWith("#/ask")`, "the ask link")
	key("\r")
	p.waitFor(`document.querySelector("#builder input[name=metric][value=`+target.Name+`]:checked")`, "the builder")
	tabTo(`el.name === "dimension" && el.value === `+js(dim.Name), "the dimension's checkbox")
	key(" ")
	tabTo(`el.id === "ask"`, "the Ask button")
	key("\r")
	p.waitFor(`document.querySelector("#answer-table tbody tr")`, "the answer")
	p.click(`nav a[data-route=catalog]`)
	p.waitFor(fmt.Sprintf(`document.querySelectorAll(".cards .card").length === %d`, metrics), "the catalogue again")

	// At a phone's width, the list and the metric fit.
	p.viewport(375, 812)
	assert.False(t, p.overflowsWidth(), "the catalogue fits 375 px")
	p.screenshot(shots, "scale-search-phone")
	p.open("/ui/#/ask", "#builder")
	assert.False(t, p.overflowsWidth(), "the builder fits 375 px")
	p.screenshot(shots, "scale-builder-phone")

	// Full entries are asked by name, at most 32 a request.
	var searched, described bool
	for _, q := range p.catalogQueries() {
		v, err := url.ParseQuery(q)
		require.NoError(t, err)
		if v.Has("search") {
			searched = true
		}
		if v.Has("metrics") {
			described = true
			assert.LessOrEqual(t, len(strings.Split(v.Get("metrics"), ",")), 32, q)
		}
	}
	assert.True(t, searched, "the search is the server's")
	assert.True(t, described, "full entries are asked by name")
	p.checkClean()
}

// TestUISmallCatalogueReadOnce: the demo's catalogue (up to 25 metrics)
// arrives whole in one GET /v1/catalog without parameters, and the page
// asks for nothing more to open a metric, build a question or search.
func TestUISmallCatalogueReadOnce(t *testing.T) {
	s := serve(t)
	p := newPage(t, s.base)
	p.open("/", "#search")
	p.typeInto("#search", "takings")
	p.waitFor(`document.querySelectorAll(".cards .card").length === 1`, "a search on the page")
	p.click(`.cards .card h2 a`)
	p.waitFor(`location.hash === "#/metric/net_sales" && document.querySelector("h1").innerText === "net_sales"`, "the metric page")
	p.click(`a.button-link[href^="#/ask"]`)
	p.waitFor(`document.querySelector("#builder input[name=metric][value=net_sales]:checked")`, "the builder")
	p.click(`input[name=metric][value=order_count]`)
	p.waitFor(`document.querySelector("#builder input[name=metric][value=order_count]:checked")`, "a second metric")
	assert.Equal(t, []string{""}, p.catalogQueries(), "one request, no parameters")
	assert.True(t, eval[bool](p, `document.getElementById("metric-find") === null`), "no list-narrowing box on a small catalogue")
	p.checkClean()
}
