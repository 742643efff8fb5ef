package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"sutura.dev/testtier"
)

// The browser tier drives Debian's chromium (never a downloaded build)
// with chromedp against the built binary. Without chromium it says
// NOT RUN, and fails when SUTURA_REQUIRE_TIERS lists chromium, as CI sets
// it. Screenshots go to SUTURA_UI_ARTIFACTS, or to the test's temporary
// directory (its path is logged).

// chromiumPath is where Debian's chromium package puts the browser;
// SUTURA_CHROMIUM overrides it.
const chromiumPath = "/usr/bin/chromium"

// requireChromium returns the browser's path, or skips the test (NOT RUN)
// or fails it when the tier is required.
func requireChromium(t *testing.T) string {
	t.Helper()
	path := os.Getenv("SUTURA_CHROMIUM")
	if path == "" {
		path = chromiumPath
	}
	if _, err := os.Stat(path); err != nil {
		testtier.Need(t, "chromium", "not installed")
	}
	if testing.Short() {
		testtier.Need(t, "chromium", "-short skips the browser tests")
	}
	return path
}

// artefacts is the directory screenshots are written to.
func artefacts(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("SUTURA_UI_ARTIFACTS")
	if dir == "" {
		dir = t.TempDir()
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	t.Logf("browser screenshots: %s", dir)
	return dir
}

// page is one browser tab on the served page, with everything it asked
// the network for and every console problem it had.
type page struct {
	t    *testing.T
	ctx  context.Context
	base *url.URL

	mu       sync.Mutex
	requests []string // URLs the page requested
	problems []string // exceptions, console errors, CSP violations

	downloadDir string
	downloaded  chan string // ids of completed downloads
}

// newPage starts a fresh headless chromium (its own profile, no
// background traffic) and opens a tab.
func newPage(t *testing.T, base string) *page {
	t.Helper()
	exe := requireChromium(t)
	u, err := url.Parse(base)
	require.NoError(t, err)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("no-pings", true),
		chromedp.Flag("lang", "en-US"),
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	p := &page{t: t, base: u, downloaded: make(chan string, 16)}
	ctx, cancel := chromedp.NewContext(allocCtx, chromedp.WithListener(p.listen))
	t.Cleanup(func() { cancel(); cancelAlloc() })
	p.ctx = ctx
	require.NoError(t, chromedp.Do(ctx))
	return p
}

// listen records requests and problems; it runs on the tab's reader.
func (p *page) listen(ev any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e := ev.(type) {
	case *network.EventRequestWillBeSent:
		p.requests = append(p.requests, e.Request.URL)
	case *browser.EventDownloadProgress:
		if e.State == browser.DownloadProgressStateCompleted {
			p.downloaded <- e.GUID
		}
	case *runtime.EventExceptionThrown:
		p.problems = append(p.problems, "exception: "+e.ExceptionDetails.Text+" "+exceptionDescription(e.ExceptionDetails))
	case *runtime.EventConsoleAPICalled:
		if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeAssert {
			p.problems = append(p.problems, "console "+string(e.Type))
		}
	case *log.EventEntryAdded:
		// A failed response (401, 403, 404 …) is logged by the network
		// source; those are the page's business. Everything else at error
		// level — a CSP or Trusted Types violation above all — is a defect.
		if e.Entry.Level == log.EntryLevelError && e.Entry.Source != log.EntrySourceNetwork {
			p.problems = append(p.problems, string(e.Entry.Source)+": "+e.Entry.Text)
		}
	}
}

func exceptionDescription(d *runtime.ExceptionDetails) string {
	if d.Exception != nil {
		return d.Exception.Description
	}
	return ""
}

// foreignRequests lists every request to anything but the server: another
// host, port or scheme (blob: and data: URLs of the page's own making
// excepted).
func (p *page) foreignRequests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, r := range p.requests {
		u, err := url.Parse(r)
		if err == nil && (u.Scheme == "blob" || u.Scheme == "data") {
			continue
		}
		if err != nil || u.Scheme != p.base.Scheme || u.Host != p.base.Host {
			out = append(out, r)
		}
	}
	return out
}

// requested lists the paths the page requested on the server.
func (p *page) requested() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, r := range p.requests {
		if u, err := url.Parse(r); err == nil && u.Host == p.base.Host {
			out = append(out, u.Path)
		}
	}
	return out
}

// checkClean fails the test on any exception, console error or policy
// violation the page had, and on any request to another host.
func (p *page) checkClean() {
	p.t.Helper()
	p.mu.Lock()
	problems := slices.Clone(p.problems)
	n := len(p.requests)
	p.mu.Unlock()
	require.Empty(p.t, problems, "the page had no exception, console error or policy violation")
	require.NotZero(p.t, n, "the network events were recorded")
	require.Empty(p.t, p.foreignRequests(), "the page requested nothing from another host")
}

// do runs actions with a bound on their time.
func (p *page) do(actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
	defer cancel()
	require.NoError(p.t, chromedp.Do(ctx, actions...))
}

// open navigates to path (on the server) and waits for sel.
func (p *page) open(path, sel string) {
	p.t.Helper()
	p.do(chromedp.Navigate(p.base.String()+path), chromedp.WaitVisible(chromedp.CSS(sel)))
}

// eval evaluates a JavaScript expression into T.
func eval[T any](p *page, expr string) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	require.NoError(p.t, err, expr)
	return v
}

// js quotes a Go string as a JavaScript string literal.
func js(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// waitFor polls a JavaScript condition until it holds.
func (p *page) waitFor(cond, what string) {
	p.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if eval[bool](p, "Boolean("+cond+")") {
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("timed out waiting for %s (%s); the page shows:\n%s", what, cond, p.text("main"))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// text returns the visible text of the first element sel matches.
func (p *page) text(sel string) string {
	p.t.Helper()
	return eval[string](p, "(document.querySelector("+js(sel)+") || {innerText: ''}).innerText")
}

// click clicks the element sel matches, as a mouse would.
func (p *page) click(sel string) {
	p.t.Helper()
	p.do(chromedp.Click(chromedp.CSS(sel)))
}

// typeInto focuses the element sel matches and types s, key by key.
func (p *page) typeInto(sel, s string) {
	p.t.Helper()
	p.do(chromedp.Focus(chromedp.CSS(sel)), chromedp.SendKeys(chromedp.CSS(sel), s))
}

// setValue sets a date, number or select control as its widget would,
// firing input and change.
func (p *page) setValue(sel, value string) {
	p.t.Helper()
	ok := eval[bool](p, `(() => { const el = document.querySelector(`+js(sel)+`); if (!el || el.disabled) return false;
		el.focus(); el.value = `+js(value)+`; el.dispatchEvent(new Event("input", {bubbles: true}));
		el.dispatchEvent(new Event("change", {bubbles: true})); return el.value === `+js(value)+`; })()`)
	require.True(p.t, ok, "set %s", sel)
}

// screenshot writes the whole page as a PNG.
func (p *page) screenshot(dir, name string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	require.NoError(p.t, err)
	require.NoError(p.t, os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644))
}

// screenshotOf writes the element sel matches as a PNG.
func (p *page) screenshotOf(dir, name, sel string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(sel)))
	require.NoError(p.t, err)
	require.NoError(p.t, os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644))
}

// viewport sets the tab's width and height (CSS pixels).
func (p *page) viewport(w, h int64) {
	p.t.Helper()
	p.do(chromedp.EmulateViewport(w, h))
}

// pageHTML is the whole document as the browser holds it now.
func (p *page) pageHTML() string {
	p.t.Helper()
	return eval[string](p, "document.documentElement.outerHTML")
}

// unlabelled lists the controls without an accessible name.
func (p *page) unlabelled() []string {
	p.t.Helper()
	return eval[[]string](p, `[...document.querySelectorAll("input, select, textarea, button")]
		.filter((el) => !el.hidden && el.type !== "hidden")
		.filter((el) => !((el.labels && el.labels.length) || el.getAttribute("aria-label") || el.getAttribute("aria-labelledby") ||
			(el.tagName === "BUTTON" && el.textContent.trim())))
		.map((el) => el.outerHTML.slice(0, 120))`)
}

// lowContrast lists visible text whose colour has less than WCAG AA
// contrast (4.5:1, 3:1 for large text) with the background behind it.
func (p *page) lowContrast() []string {
	p.t.Helper()
	return eval[[]string](p, `(() => {
		const rgb = (s) => { const m = s.match(/rgba?\(([^)]+)\)/); if (!m) return null; const v = m[1].split(/[ ,\/]+/).filter(Boolean).map(Number); return {r: v[0], g: v[1], b: v[2], a: v.length > 3 ? v[3] : 1}; };
		const lum = (c) => { const f = (x) => { x /= 255; return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); }; return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b); };
		const bg = (el) => { for (; el; el = el.parentElement) { const c = rgb(getComputedStyle(el).backgroundColor); if (c && c.a > 0.5) return c; } return {r: 255, g: 255, b: 255, a: 1}; };
		const out = [];
		const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
		for (let n = walker.nextNode(); n; n = walker.nextNode()) {
			const el = n.parentElement;
			if (!n.textContent.trim() || !el || !el.checkVisibility() || el.closest(".uplot canvas")) continue;
			const st = getComputedStyle(el);
			if (el.closest("button:disabled, input:disabled, select:disabled")) continue;
			const fg = rgb(st.color), b = bg(el);
			const [hi, lo] = [lum(fg), lum(b)].sort((x, y) => y - x);
			const ratio = (hi + 0.05) / (lo + 0.05);
			const large = parseFloat(st.fontSize) >= 24 || (parseFloat(st.fontSize) >= 18.66 && Number(st.fontWeight) >= 700);
			if (ratio < (large ? 3 : 4.5)) out.push(n.textContent.trim().slice(0, 40) + " " + ratio.toFixed(2));
		}
		return out;
	})()`)
}

// overflowsWidth reports whether the page is wider than the viewport.
func (p *page) overflowsWidth() bool {
	p.t.Helper()
	return eval[bool](p, "document.documentElement.scrollWidth > window.innerWidth + 1")
}

// tableRows reads the answer table's body as text cells: a metric's
// exact value (data-exact; the cell shows it in a readable form), every
// other cell's text.
func (p *page) tableRows() [][]string {
	p.t.Helper()
	return eval[[][]string](p, `[...document.querySelectorAll("#answer-table tbody tr")].map((tr) => [...tr.cells].map((td) => td.dataset.exact ?? td.textContent))`)
}

// tableHead reads the answer table's column names.
func (p *page) tableHead() []string {
	p.t.Helper()
	return eval[[]string](p, `[...document.querySelectorAll("#answer-table thead th")].map((th) => th.querySelector("span").textContent)`)
}

func (p *page) String() string { return fmt.Sprintf("page on %s", p.base) }

// downloadsTo makes the browser save every download into dir, each under
// its id, and announce it when complete.
func (p *page) downloadsTo(dir string) {
	p.t.Helper()
	p.downloadDir = dir
	p.do(chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
			Behavior: browser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: dir, EventsEnabled: new(true)})
		return err
	}))
}

// nextDownload waits for the next completed download and returns it.
func (p *page) nextDownload() string {
	p.t.Helper()
	select {
	case id := <-p.downloaded:
		b, err := os.ReadFile(filepath.Join(p.downloadDir, id))
		require.NoError(p.t, err)
		return string(b)
	case <-time.After(20 * time.Second):
		p.t.Fatal("no download completed")
		return ""
	}
}
