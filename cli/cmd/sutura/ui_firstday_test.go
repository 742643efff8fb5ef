package main

import (
	"encoding/json"
	"net/url"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// labelsOverlap checks the x labels the chart drew (data-x-labels, with
// their centres, in data-x-font): "" when at least two were drawn and no
// two overlap, otherwise what is wrong.
const labelsOverlap = `(() => {
	const el = document.querySelector(".chart-box .uplot");
	const drawn = el && el.dataset.xLabels ? JSON.parse(el.dataset.xLabels) : null;
	if (!drawn) return "the chart records no x labels";
	const c = document.createElement("canvas").getContext("2d");
	c.font = el.dataset.xFont;
	for (let i = 1; i < drawn.length; i++) {
		const a = drawn[i - 1], b = drawn[i];
		if (b.x - c.measureText(b.text).width / 2 < a.x + c.measureText(a.text).width / 2) return "labels " + a.text + " and " + b.text + " overlap";
	}
	return drawn.length >= 2 ? "" : "fewer than two labels drawn";
})()`

// TestUIFirstDay walks what a new user stumbled on in the catalogue
// browser: the header names the catalogue (not its version), links do not
// hide the underscores of metric names, a chart's x labels never overlap
// (25 bars, 18 periods, desktop and phone), a table wider than a phone
// says so, and numbers are grouped with the exact value one click away.
func TestUIFirstDay(t *testing.T) {
	s := serve(t)
	p := newPage(t, s.base)
	shots := artefacts(t)

	p.open("/", "#search")
	_, _, body := s.do(t, "GET", "/v1/catalog", "")
	var cat struct {
		Version string `json:"definition_version"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &cat))
	p.waitFor(`document.getElementById("pin").textContent !== ""`, "the header")
	assert.Equal(t, "catalogue demo", p.text("#pin"), "the header names the catalogue")
	assert.NotContains(t, p.text("header.top"), cat.Version, "its version is on the catalogue page, not in the header")

	// A link's underline sits under the descenders, clear of underscores.
	assert.Equal(t, "under", eval[string](p, `getComputedStyle(document.querySelector(".cards .card h2 a")).textUnderlinePosition`))
	p.screenshotOf(shots, "firstday-underscores", ".cards .card")

	ask := func(question string) {
		p.open("/ui/#/ask?q="+url.QueryEscape(question), "#builder")
		p.click("#ask")
		p.waitFor(`document.querySelector(".chart-box .uplot canvas")`, "the chart")
	}
	for _, c := range []struct{ name, question string }{
		{"bars", `{"metrics":["net_sales"],"grain":"year","range":{"start":"2025-01-01","end":"2026-01-01"},"dimensions":["product"]}`},
		{"periods", `{"metrics":["net_sales"],"grain":"month","range":{"start":"2024-01-01","end":"2025-07-01"}}`},
	} {
		p.viewport(1280, 900)
		ask(c.question)
		assert.Empty(t, eval[string](p, labelsOverlap), "desktop, %s", c.name)
		p.screenshotOf(shots, "firstday-"+c.name+"-desktop", ".chart-box")
		p.viewport(375, 812)
		p.waitFor(`document.querySelector(".chart-box .uplot").getBoundingClientRect().width <= 375`, "the chart at phone width")
		assert.Empty(t, eval[string](p, labelsOverlap), "phone, %s", c.name)
		p.screenshotOf(shots, "firstday-"+c.name+"-phone", ".chart-box")
	}

	// A table wider than a phone says so, and its shadow follows the scroll.
	p.viewport(375, 812)
	ask(`{"metrics":["net_sales","order_count","average_order_value"],"grain":"month","range":{"start":"2025-01-01","end":"2025-04-01"},"dimensions":["area","channel"]}`)
	p.waitFor(`document.querySelector(".table-wrap.more-right")`, "the shadow on the right")
	assert.True(t, eval[bool](p, `document.getElementById("scroll-hint").checkVisibility()`), "a sentence says the table scrolls")
	p.screenshot(shots, "firstday-wide-table-phone")
	eval[bool](p, `(() => { const w = document.querySelector(".table-wrap"); w.scrollLeft = w.scrollWidth; return true; })()`)
	p.waitFor(`document.querySelector(".table-wrap.more-left") && !document.querySelector(".table-wrap.more-right")`, "the shadow on the left at the end")
	p.viewport(1280, 900)
	p.waitFor(`document.getElementById("scroll-hint").hidden`, "no cue where the table fits")

	// Numbers are grouped; the exact value is one click away.
	grouped := regexp.MustCompile(`^-?\d{1,3}(,\d{3})*(\.\d{1,2})?$`)
	exact := eval[string](p, `document.querySelector("#answer-table td.metric button.num").parentElement.dataset.exact`)
	shown := p.text("#answer-table td.metric button.num")
	assert.Regexp(t, grouped, shown, "a readable number")
	assert.NotEqual(t, exact, shown)
	p.click("#answer-table td.metric button.num")
	assert.Equal(t, exact, p.text("#answer-table td.metric button.num"), "one click shows the exact value")
	assert.Equal(t, "true", eval[string](p, `document.querySelector("#answer-table td.metric button.num").getAttribute("aria-pressed")`))
	p.click("#answer-table td.metric button.num")
	assert.Equal(t, shown, p.text("#answer-table td.metric button.num"), "and another the readable one")
	assert.True(t, eval[bool](p, `[...document.querySelectorAll("#answer-table td.metric")].every((td) => td.dataset.exact !== undefined || td.classList.contains("null"))`))
	assert.Empty(t, p.unlabelled())
	assert.Empty(t, p.lowContrast())
	p.screenshot(shots, "firstday-numbers")
	p.checkClean()
}
