package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image/png"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// answerBody is POST /v1/query's answer.
type answerBody struct {
	Outcome string `json:"outcome"`
	Columns []struct {
		Name string `json:"name"`
		Role string `json:"role"`
	} `json:"columns"`
	Rows       [][]*string `json:"rows"`
	Provenance struct {
		DefinitionVersion string `json:"definition_version"`
		DefinitionDigest  string `json:"definition_digest"`
		MetricDigests     []struct {
			Metric string `json:"metric"`
			Digest string `json:"digest"`
		} `json:"metric_digests"`
	} `json:"provenance"`
}

// cells renders rows as the page shows them: null as "null".
func (a answerBody) cells() [][]string {
	out := [][]string{}
	for _, r := range a.Rows {
		row := make([]string, len(r))
		for i, c := range r {
			row[i] = "null"
			if c != nil {
				row[i] = *c
			}
		}
		out = append(out, row)
	}
	return out
}

// TestUIOnDemo walks the catalogue browser on the demo as a person would:
// the catalogue, a search, a metric, a question built with the page's
// controls, the answer as a table equal to /v1/query's and as a chart,
// the command line the page shows run for real, a refusal; at desktop
// and phone widths, without a request to another host.
func TestUIOnDemo(t *testing.T) {
	s := serve(t)
	p := newPage(t, s.base)
	shots := artefacts(t)

	// GET / sends a browser to the page, which loads the catalogue.
	p.open("/", "#search")
	require.Equal(t, s.base+"/ui/", eval[string](p, "location.origin + location.pathname"))
	code, _, body := s.do(t, "GET", "/v1/catalog", "")
	require.Equal(t, 200, code)
	var cat struct {
		Version string `json:"definition_version"`
		Digest  string `json:"definition_digest"`
		Metrics []struct {
			Name string `json:"name"`
		} `json:"metrics"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &cat))
	pin := p.text(".pin")
	assert.Contains(t, pin, cat.Version)
	assert.Contains(t, pin, cat.Digest)
	assert.Equal(t, len(cat.Metrics), eval[int](p, `document.querySelectorAll(".cards .card").length`), "every metric the catalogue shows")
	assert.Empty(t, p.unlabelled(), "every control has a label")
	assert.Empty(t, p.lowContrast(), "every text has enough contrast")
	p.screenshot(shots, "desktop-catalogue")

	// A glossary synonym finds the metric it means.
	p.typeInto("#search", "takings")
	p.waitFor(`document.querySelectorAll(".cards .card").length === 1`, "one metric for a glossary synonym")
	assert.Equal(t, "net_sales", p.text(".cards .card h2"))
	p.click(`.cards .card h2 a`)
	p.waitFor(`location.hash === "#/metric/net_sales" && document.querySelector("h1") && document.querySelector("h1").innerText === "net_sales"`, "the metric page")
	metric := p.text("#view")
	for _, want := range []string{"orders", "order_date", "sum(net_amount_cents)", "24032720", "leaves out rows where status has one fixed value",
		"only rows where is_paid is true", "East", "group by only", "revenue"} {
		assert.Contains(t, metric, want)
	}
	p.screenshot(shots, "desktop-metric")

	// Build a question with the page's controls: a dimension and a filter.
	p.click(`a.button-link[href^="#/ask"]`)
	p.waitFor(`document.querySelector("#builder input[name=metric][value=net_sales]:checked")`, "the builder with net_sales")
	p.setValue("#grain", "month")
	p.setValue("#range-start", "2025-01-01")
	p.setValue("#range-end", "2025-07-01")
	p.click(`input[name=dimension][value=area]`)
	p.click(`input[name="filter-channel"][value=online]`)
	question := p.text("#question-json")
	var q map[string]any
	require.NoError(t, json.Unmarshal([]byte(question), &q), question)
	assert.JSONEq(t, `{"metrics":["net_sales"],"grain":"month","range":{"start":"2025-01-01","end":"2025-07-01"},
		"dimensions":["area"],"filters":[{"op":"eq","dimension":"channel","value":"online"}]}`, question)
	p.click("#ask")
	p.waitFor(`document.querySelector("#answer-table tbody tr")`, "the answer table")

	// The table is /v1/query's answer to the same question, row for row.
	code, _, direct := s.do(t, "POST", "/v1/query", question)
	require.Equal(t, 200, code, direct)
	var want answerBody
	require.NoError(t, json.Unmarshal([]byte(direct), &want))
	require.NotEmpty(t, want.Rows)
	assert.Equal(t, []string{"area", "period", "net_sales"}, p.tableHead())
	assert.Equal(t, want.cells(), p.tableRows(), "the table holds exactly the rows of /v1/query")
	assert.Contains(t, p.text(".provenance"), want.Provenance.DefinitionDigest)
	assert.Contains(t, p.text(".provenance"), want.Provenance.MetricDigests[0].Digest)
	assert.Contains(t, p.text(".provenance"), "shared-service-user")

	// A chart is drawn: a canvas with ink, and a legend entry per area.
	p.waitFor(`document.querySelector(".chart-box .uplot canvas")`, "the chart")
	legend := eval[[]string](p, `[...document.querySelectorAll(".u-legend .u-series .u-label")].map((e) => e.textContent)`)
	areas := map[string]bool{}
	for _, r := range want.cells() {
		areas["net_sales · "+r[0]] = true
	}
	for a := range areas {
		assert.Contains(t, legend, a, "one series per dimension value")
	}
	assert.Greater(t, inked(t, p), 500, "the canvas has lines on it")

	// The downloads are the answer as CSV and the body as received.
	p.downloadsTo(t.TempDir())
	p.click("#download-csv")
	var wantCSV strings.Builder
	wantCSV.WriteString("area,period,net_sales\r\n")
	for _, r := range want.Rows {
		for i, c := range r {
			if i > 0 {
				wantCSV.WriteString(",")
			}
			if c != nil {
				wantCSV.WriteString(*c)
			}
		}
		wantCSV.WriteString("\r\n")
	}
	assert.Equal(t, wantCSV.String(), p.nextDownload(), "the CSV download")
	p.click("#download-json")
	assert.Equal(t, steadyOutcome(t, []byte(direct)), steadyOutcome(t, []byte(p.nextDownload())), "the JSON download is the body (but for the call's own measurements)")

	// The command line the page shows is a real one: run it.
	cli := p.text("#question-cli")
	require.True(t, strings.HasPrefix(cli, "sutura ask "), cli)
	cmd := exec.Command("sh", "-c", strings.Replace(cli, "sutura", shellWord(binary(t)), 1))
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), stderr.String())
	assert.Equal(t, steadyOutcome(t, []byte(direct)), steadyOutcome(t, stdout.Bytes()), "sutura ask prints the same body the page received (but for the call's own measurements)")

	// Sorting by the metric orders the rows by their value, nulls last.
	p.click(`#answer-table th.metric button`)
	assert.Equal(t, "ascending", eval[string](p, `document.querySelector("#answer-table th.metric").getAttribute("aria-sort")`))
	assert.True(t, eval[bool](p, `(() => { const v = [...document.querySelectorAll("#answer-table tbody td.metric")].map((td) => td.dataset.exact ?? td.textContent);
		const n = v.filter((x) => x !== "null").map(Number); return n.every((x, i) => i === 0 || n[i-1] <= x) && v.indexOf("null") <= 0 || v.slice(v.indexOf("null")).every((x) => x === "null"); })()`))
	assert.Empty(t, p.unlabelled())
	assert.Empty(t, p.lowContrast())
	p.screenshot(shots, "desktop-answer")

	// At a phone's width the page fits and the chart is redrawn to fit.
	p.viewport(375, 812)
	p.waitFor(`document.querySelector(".chart-box .uplot").getBoundingClientRect().width <= 375`, "the chart at phone width")
	assert.False(t, p.overflowsWidth(), "nothing is wider than a phone")
	p.screenshot(shots, "phone-answer")
	p.open("/ui/#/", "#search")
	assert.False(t, p.overflowsWidth())
	p.screenshot(shots, "phone-catalogue")
	p.viewport(1280, 900)

	// One period is a bar chart; several metrics each get an axis.
	for _, c := range []struct {
		question, kind string
		axes           int
	}{
		{`{"metrics":["net_sales","order_count"],"grain":"year","range":{"start":"2025-01-01","end":"2026-01-01"},"dimensions":["area"]}`, "Bar chart", 3},
		{`{"metrics":["net_sales","order_count","average_order_value"],"grain":"quarter","range":{"start":"2025-01-01","end":"2026-01-01"},"dimensions":["channel"]}`, "Line chart", 4},
	} {
		p.open("/ui/#/ask?q="+url.QueryEscape(c.question), "#builder")
		assert.JSONEq(t, c.question, p.text("#question-json"), "a link fills the builder")
		p.click("#ask")
		p.waitFor(`document.querySelector(".chart-box .uplot canvas")`, c.kind)
		assert.True(t, strings.HasPrefix(p.text(".chart-note"), c.kind), p.text(".chart-note"))
		assert.Equal(t, c.axes, eval[int](p, `document.querySelectorAll(".chart-box .u-axis").length`), "an axis per metric and one for x")
		assert.Greater(t, inked(t, p), 500)
	}
	p.screenshot(shots, "desktop-lines")
	p.viewport(960, 900)
	p.screenshotOf(shots, "desktop-lines-outcome", "#outcome")
	p.viewport(1280, 900)

	// A question the catalogue does not allow is refused, and shown as a
	// refusal (code and sentence), not as a failure.
	p.open("/ui/#/ask?q="+`%7B%22metrics%22%3A%5B%22net_sales%22%5D%7D`, "#builder")
	p.setValue("#range-start", "2000-01-01")
	p.setValue("#range-end", "2026-01-01")
	p.click("#ask")
	p.waitFor(`document.querySelector("#refusal")`, "the refusal")
	assert.Contains(t, p.text("#refusal h2"), "time_range_too_long")
	assert.NotEmpty(t, p.text("#refusal .detail"))
	assert.Zero(t, eval[int](p, `document.querySelectorAll("#failure, #answer-table").length`))
	p.screenshot(shots, "desktop-refusal")

	p.checkClean()
	for _, path := range p.requested() {
		assert.True(t, strings.HasPrefix(path, "/ui/") || path == "/" || path == "/v1/catalog" || path == "/v1/query", "the page uses no private endpoint: %s", path)
	}
}

// inked counts the pixels of the chart's canvas that are not background.
func inked(t *testing.T, p *page) int {
	t.Helper()
	data := eval[string](p, `document.querySelector(".chart-box .uplot canvas").toDataURL("image/png")`)
	raw, ok := strings.CutPrefix(data, "data:image/png;base64,")
	require.True(t, ok)
	b64, err := base64.StdEncoding.DecodeString(raw)
	require.NoError(t, err)
	img, err := png.Decode(bytes.NewReader(b64))
	require.NoError(t, err)
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if _, _, _, a := img.At(x, y).RGBA(); a > 0x8000 {
				n++
			}
		}
	}
	return n
}

// shellWord quotes a path for sh.
func shellWord(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// TestUICommandLineQuoting runs the page's command line for values a
// shell would otherwise read as its own (quotes, spaces, $, backquotes,
// globs, separators): the program receives exactly the words the
// question holds.
func TestUICommandLineQuoting(t *testing.T) {
	s := serve(t)
	p := newPage(t, s.base)
	p.open("/ui/", "#search")
	values := []string{"it's", "a b", "$HOME", "`id`", `"q"`, `a\b`, "-x", "=y", "é ü", "*", ";true", "a=b", "x,y", "~", "!", "#c", "&", "|", "(", "{a,b}"}
	filters := make([]map[string]any, 0, len(values))
	want := []string{"ask", "m1,m2", "--grain", "month", "--from", "2025-01-01", "--to", "2025-02-01", "--by", "area,channel"}
	for i, v := range values {
		dim := "d" + string(rune('a'+i))
		op, flag := "in", "--where"
		if i%2 == 1 {
			op, flag = "not_in", "--where-not"
		}
		filters = append(filters, map[string]any{"op": op, "dimension": dim, "values": []string{v}})
		want = append(want, flag, dim+"="+v)
	}
	want = append(want, "--json")
	q := map[string]any{"metrics": []string{"m1", "m2"}, "grain": "month", "range": map[string]string{"start": "2025-01-01", "end": "2025-02-01"},
		"dimensions": []string{"area", "channel"}, "filters": filters}
	qj, err := json.Marshal(q)
	require.NoError(t, err)
	line := eval[string](p, `import("./js/question.js").then((m) => m.askCommand(`+string(qj)+`))`)
	require.True(t, strings.HasPrefix(line, "sutura ask "), line)
	cmd := exec.Command("sh", "-c", `printf '%s\n' `+strings.TrimPrefix(line, "sutura "))
	out, err := cmd.Output()
	require.NoError(t, err, line)
	got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	assert.Equal(t, want, got, line)
	p.checkClean()
}
