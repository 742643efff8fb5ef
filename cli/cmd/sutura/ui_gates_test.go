package main

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUIAsksForTheAccessTokenOnce serves with a deployment access token:
// the page asks for it, handles the 401 of a wrong one without repeating
// it, keeps the right one in the tab's session storage only (not local
// storage, not a cookie), sends it with every call, and forgets it on
// request.
func TestUIAsksForTheAccessTokenOnce(t *testing.T) {
	const token, wrong = "zz-access-token-1", "zz-wrong-token-7"
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "access"), []byte(token+"\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "base.yaml"), []byte("security:\n  access_token_file: access\n"), 0o600))
	s := serve(t, "SUTURA_CONFIG_DIR="+dir)
	p := newPage(t, s.base)
	shots := artefacts(t)

	p.open("/ui/", "#signin")
	assert.Equal(t, "Access token", p.text(`label[for="token"]`))
	assert.Empty(t, p.text("#token-error"), "no complaint before a token was given")
	assert.Zero(t, eval[int](p, `document.querySelectorAll("#access-token").length`), "one token without inbound identity")

	p.typeInto("#token", wrong)
	p.click("#signin-submit")
	p.waitFor(`document.querySelector("#token-error") && document.querySelector("#token-error").innerText.includes("401")`, "the refusal of a wrong token")
	assert.Contains(t, p.text("#token-error"), "unauthorized")
	assert.NotContains(t, p.pageHTML(), wrong, "a rejected token is never shown")
	assert.Zero(t, eval[int](p, "sessionStorage.length"), "a rejected token is not kept")
	p.screenshot(shots, "desktop-signin-refused")

	p.typeInto("#token", token)
	p.click("#signin-submit")
	p.waitFor(`document.querySelector("#search")`, "the catalogue once the token is accepted")
	assert.Equal(t, token, eval[string](p, `sessionStorage.getItem("sutura.token")`))
	assert.Zero(t, eval[int](p, "localStorage.length"), "nothing in local storage")
	assert.Empty(t, eval[string](p, "document.cookie"), "no cookie")

	// Asked once: the tab keeps it across a reload, and every call sends it.
	p.do(chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#search")))
	assert.Zero(t, eval[int](p, `document.querySelectorAll("#signin").length`))
	p.open("/ui/#/ask?q="+url.QueryEscape(year2025), "#builder")
	p.click("#ask")
	p.waitFor(`document.querySelector("#answer-table tbody tr")`, "an answer with the token")
	assert.Contains(t, p.tableRows(), []string{"2025-01-01", "24032720"}, "the exact value (the cell shows 24,032,720)")
	assert.Contains(t, p.text("#question-curl"), "$SUTURA_TOKEN", "the curl line names the token, never shows it")
	assert.NotContains(t, p.pageHTML(), token, "the token is never written into the page")

	p.click("#signout")
	p.waitFor(`document.querySelector("#signin")`, "the sign-in form after forgetting the token")
	assert.Zero(t, eval[int](p, "sessionStorage.length"))
	p.checkClean()
}

// TestUIShowsOnlyWhatTheCatalogueShows serves with JWT identity: a caller
// outside the finance audience never sees a restricted metric — not in
// the catalogue, not through a hand-crafted link — and the page never
// repeats a value it rejected (a canary in the address and in the search
// box), while a caller in the audience does see the metric.
func TestUIShowsOnlyWhatTheCatalogueShows(t *testing.T) {
	const canary = "ZZcanary7f3"
	dir, idp := jwtConfig(t)
	s := serve(t, "SUTURA_CONFIG_DIR="+dir)
	analyst := idp.token(t, "analyst@example.com", "sutura:catalog.read sutura:metrics.ask")
	cfo := idp.token(t, "cfo@example.com", "sutura:catalog.read sutura:metrics.ask", "finance-team")
	hidden := []string{"collected_payments", "discounts_given"}
	_, _, asAnalyst := s.do(t, "GET", "/v1/catalog", "", "Authorization", "Bearer "+analyst)
	_, _, asCFO := s.do(t, "GET", "/v1/catalog", "", "Authorization", "Bearer "+cfo)
	for _, m := range hidden {
		require.NotContains(t, asAnalyst, m, "the catalogue hides it from the analyst")
		require.Contains(t, asCFO, m)
	}

	p := newPage(t, s.base)
	p.open("/ui/", "#signin")
	assert.Equal(t, "Bearer token (JWT)", p.text(`label[for="token"]`), "the page knows the server identifies callers")
	p.typeInto("#token", "not-a-jwt")
	p.click("#signin-submit")
	p.waitFor(`document.querySelector("#token-error") && document.querySelector("#token-error").innerText.includes("401")`, "a bad JWT refused")
	assert.NotContains(t, p.pageHTML(), "not-a-jwt")

	p.typeInto("#token", analyst)
	p.click("#signin-submit")
	p.waitFor(`document.querySelector("#search")`, "the analyst's catalogue")
	noneOf := func(what string, words ...string) {
		t.Helper()
		html := p.pageHTML()
		text := p.text("body")
		for _, w := range words {
			assert.NotContains(t, html, w, what)
			assert.NotContains(t, text, w, what)
		}
	}
	noneOf("the catalogue view", hidden...)

	// Hand-crafted links: a hidden metric, a canary in the path and in a
	// question.
	p.open("/ui/#/metric/collected_payments", "h1")
	assert.Equal(t, "No such metric", p.text("h1"))
	noneOf("a link to a hidden metric", hidden...)
	p.open("/ui/#/metric/"+url.PathEscape(canary+"<b>x</b>"), "h1")
	assert.Equal(t, "No such metric", p.text("h1"))
	noneOf("a canary metric name", canary)
	link := `{"metrics":["collected_payments","net_sales"],"grain":"month","range":{"start":"2025-01-01","end":"2025-03-01"},` +
		`"dimensions":["area","` + canary + `"],"filters":[{"op":"eq","dimension":"channel","value":"` + canary + `"},` +
		`{"op":"in","dimension":"area","values":["East","` + canary + `"]}],"` + canary + `":1}`
	p.open("/ui/#/ask?q="+url.QueryEscape(link), "#builder")
	p.waitFor(`document.querySelector("#link-notice")`, "the notice that part of the link was left out")
	noneOf("a crafted question", append([]string{canary}, hidden...)...)
	assert.JSONEq(t, `{"metrics":["net_sales"],"grain":"month","range":{"start":"2025-01-01","end":"2025-03-01"},
		"dimensions":["area"],"filters":[{"op":"eq","dimension":"area","value":"East"}]}`, p.text("#question-json"))
	p.click("#ask")
	p.waitFor(`document.querySelector("#answer-table tbody tr")`, "the answer to what was kept")
	noneOf("the answer", canary)

	// The search box does not repeat what was typed.
	p.open("/ui/#/", "#search")
	p.typeInto("#search", canary)
	p.waitFor(`document.querySelector("#search-status").innerText.startsWith("No metric")`, "no match")
	noneOf("a search", canary)
	p.checkClean()

	// A caller whose scopes do not grant asking gets a failure, shown as
	// one (not as a refusal).
	reader := idp.token(t, "reader@example.com", "sutura:catalog.read")
	p.click("#signout")
	p.waitFor(`document.querySelector("#signin")`, "the sign-in form")
	p.typeInto("#token", reader)
	p.click("#signin-submit")
	p.waitFor(`document.querySelector("#search")`, "the reader's catalogue")
	p.open("/ui/#/ask?q="+url.QueryEscape(year2025), "#builder")
	p.click("#ask")
	p.waitFor(`document.querySelector("#failure")`, "the failure")
	assert.Contains(t, p.text("#failure h2"), "insufficient_scope")
	assert.Contains(t, p.text("#failure"), "sutura:metrics.ask")
	assert.Zero(t, eval[int](p, `document.querySelectorAll("#refusal, #answer-table").length`))

	// A caller in the audience does see the metric.
	p.click("#signout")
	p.waitFor(`document.querySelector("#signin")`, "the sign-in form")
	p.typeInto("#token", cfo)
	p.click("#signin-submit")
	p.waitFor(`document.querySelector("#builder")`, "the CFO's builder (signing in keeps the address)")
	p.open("/ui/#/", "#search")
	for _, m := range hidden {
		assert.Contains(t, p.text(".cards"), m)
	}
	assert.NotContains(t, p.pageHTML(), cfo, "the token is never written into the page")
	p.checkClean()
}

// TestUIWithTheKeyboardOnly reaches a metric, builds a question and sorts
// the answer with Tab, Enter and Space only.
func TestUIWithTheKeyboardOnly(t *testing.T) {
	s := serve(t)
	p := newPage(t, s.base)
	p.open("/ui/", "#search")
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
	tabTo(`el.id === "search"`, "the search box")
	key("gross")
	p.waitFor(`document.querySelectorAll(".cards .card").length >= 1`, "search results")
	tabTo(`el.getAttribute("href") === "#/metric/gross_sales"`, "the metric's link")
	key("\r")
	p.waitFor(`location.hash === "#/metric/gross_sales"`, "the metric page")
	tabTo(`el.classList.contains("button-link") && el.getAttribute("href").startsWith("#/ask")`, "the ask link")
	key("\r")
	p.waitFor(`document.querySelector("#builder input[value=gross_sales]:checked")`, "the builder")
	tabTo(`el.name === "dimension" && el.value === "channel"`, "the channel checkbox")
	key(" ")
	assert.True(t, eval[bool](p, `document.querySelector("input[name=dimension][value=channel]").checked`))
	tabTo(`el.id === "ask"`, "the Ask button")
	key("\r")
	p.waitFor(`document.querySelector("#answer-table tbody tr")`, "the answer")
	assert.Equal(t, "outcome-h", eval[string](p, "document.activeElement.id"), "the answer's heading takes the focus")
	tabTo(`el.classList.contains("sort") && el.closest("th").classList.contains("metric")`, "the metric's column heading")
	key("\r")
	assert.Equal(t, "ascending", eval[string](p, `document.querySelector("#answer-table th.metric").getAttribute("aria-sort")`))
	key("\r")
	assert.Equal(t, "descending", eval[string](p, `document.querySelector("#answer-table th.metric").getAttribute("aria-sort")`))
	assert.True(t, strings.HasPrefix(eval[string](p, "location.hash"), "#/ask?q="), "the address holds the question, to share it")
	p.checkClean()
}
