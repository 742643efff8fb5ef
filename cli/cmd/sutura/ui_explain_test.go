package main

import (
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestUIShowsTheExplanation asks a shared question on the page and finds
// the explanation under the answer (docs/contract.md §16): the definition
// in words, where it ran and the trace id of the call.
func TestUIShowsTheExplanation(t *testing.T) {
	requireChromium(t)
	s := serve(t)
	p := newPage(t, s.base)
	p.open("/ui/#/ask?q="+url.QueryEscape(year2025), "#ask")
	p.click("#ask")
	p.waitFor(`document.querySelector("#answer-table tbody tr")`, "the answer")
	p.waitFor(`document.querySelector("#explanation")`, "the explanation")
	text := p.text("#explanation")
	assert.Contains(t, text, "How this answer was computed")
	assert.Contains(t, text, "net_sales")
	assert.Contains(t, text, "cache ")
	assert.Regexp(t, `^[0-9a-f]{32}$`, p.text("#explain-trace"))
	assert.True(t, eval[bool](p, `Boolean(document.querySelector("#explanation").compareDocumentPosition(document.querySelector("#answer-table")) & Node.DOCUMENT_POSITION_PRECEDING)`),
		"the explanation comes under the answer")
	assert.False(t, strings.Contains(text, "undefined"), text)
	p.checkClean()
}
