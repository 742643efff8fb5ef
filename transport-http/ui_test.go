package httpapi

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUIServesThePage: the page and its assets with headers that let it
// load nothing from elsewhere, nothing else under /ui/, GET / sends a
// browser there, and the gates of /docs apply.
func TestUIServesThePage(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{})
	r := e.do(t, request{path: "/ui/"})
	require.Equal(t, http.StatusOK, r.status)
	assert.Equal(t, "text/html; charset=utf-8", r.header.Get("Content-Type"))
	assert.Equal(t, uiCSP, r.header.Get("Content-Security-Policy"))
	assert.Contains(t, uiCSP, "default-src 'none'")
	assert.Contains(t, uiCSP, "frame-ancestors 'none'")
	assert.NotContains(t, uiCSP, "unsafe-inline")
	assert.NotContains(t, uiCSP, "http")
	assert.Equal(t, "nosniff", r.header.Get("X-Content-Type-Options"))
	assert.Equal(t, "no-referrer", r.header.Get("Referrer-Policy"))
	assert.Equal(t, "DENY", r.header.Get("X-Frame-Options"))
	assert.Equal(t, "no-cache", r.header.Get("Cache-Control"))
	assert.Contains(t, string(r.body), `<script type="module" src="js/main.js"></script>`)

	for p, ct := range map[string]string{
		"/ui/js/main.js":               "text/javascript; charset=utf-8",
		"/ui/app.css":                  "text/css; charset=utf-8",
		"/ui/vendor/uPlot.iife.min.js": "text/javascript; charset=utf-8",
		"/ui/vendor/uPlot.LICENSE":     "text/plain; charset=utf-8",
		"/ui/icon.svg":                 "image/svg+xml",
	} {
		r := e.do(t, request{path: p})
		require.Equal(t, http.StatusOK, r.status, p)
		assert.Equal(t, ct, r.header.Get("Content-Type"), p)
		assert.Equal(t, uiCSP, r.header.Get("Content-Security-Policy"), p)
	}

	etag := r.header.Get("ETag")
	require.NotEmpty(t, etag)
	assert.Equal(t, http.StatusNotModified, e.do(t, request{path: "/ui/", header: map[string]string{"If-None-Match": etag}}).status)
	head := e.do(t, request{method: http.MethodHead, path: "/ui/"})
	assert.Equal(t, http.StatusOK, head.status)
	assert.Empty(t, head.body)

	requireFailure(t, e.do(t, request{path: "/ui/" + canary + ".js"}), NotFound)
	requireFailure(t, e.do(t, request{path: "/ui/vendor/SHA256SUMS"}), NotFound)
	requireFailure(t, e.do(t, request{path: "/ui/../v1/catalog/" + canary}), NotFound)
	requireFailure(t, e.do(t, request{method: http.MethodPost, path: "/ui/", body: "{}"}), MethodNotAllowed)
	requireFailure(t, e.do(t, request{path: "/ui/", host: "evil.example"}), HostNotAllowed)

	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, p := range []string{"/", "/ui"} {
		resp, err := client.Get(e.srv.URL + p)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Contains(t, []int{http.StatusFound, http.StatusMovedPermanently, http.StatusTemporaryRedirect}, resp.StatusCode, p)
		assert.Equal(t, "/ui/", resp.Header.Get("Location"), p)
	}
	requireFailure(t, e.do(t, request{method: http.MethodPost, path: "/", body: "{}"}), NotFound)
}

// TestUIHoldsNoDataSoNeedsNoToken: with a deployment token, the page (a
// browser's navigation cannot carry the token) is served without it; the
// catalogue it then asks for is not.
func TestUIHoldsNoDataSoNeedsNoToken(t *testing.T) {
	e := newEnv(t, newFake(), envConfig{cfg: Config{AccessToken: []byte("zz-token")}})
	assert.Equal(t, http.StatusOK, e.do(t, request{path: "/ui/"}).status)
	requireFailure(t, e.do(t, request{path: "/v1/catalog"}), Unauthorized)
}

// TestUIVendorMatchesItsChecksums: the chart library embedded is byte for
// byte what scripts/ui-vendor fetched and checked.
func TestUIVendorMatchesItsChecksums(t *testing.T) {
	sums, err := uiFS.Open("ui/vendor/SHA256SUMS")
	require.NoError(t, err)
	defer sums.Close()
	n := 0
	sc := bufio.NewScanner(sums)
	for sc.Scan() {
		want, name, ok := strings.Cut(sc.Text(), "  ")
		require.True(t, ok, sc.Text())
		b, err := fs.ReadFile(uiFS, "ui/vendor/"+name)
		require.NoError(t, err)
		got := sha256.Sum256(b)
		assert.Equal(t, want, hex.EncodeToString(got[:]), name)
		n++
	}
	require.NoError(t, sc.Err())
	assert.Equal(t, 3, n, "the script, its stylesheet and its licence")
}

// TestUIAssetsNameNoOtherHost: no asset refers to a script, stylesheet,
// image or endpoint on another host (the browser test watches the
// network; this reads the files).
func TestUIAssetsNameNoOtherHost(t *testing.T) {
	remote := regexp.MustCompile(`(?i)(?:src|href|action)\s*=\s*["']?(?:[a-z]+:)?//|url\(\s*["']?(?:[a-z]+:)?//|@import|import\s*\(?\s*["'](?:[a-z]+:)?//|fetch\(\s*["'](?:[a-z]+:)?//|new\s+(?:WebSocket|EventSource)\(`)
	assets, err := uiAssets()
	require.NoError(t, err)
	require.Contains(t, assets, "index.html")
	for name, a := range assets {
		switch path.Ext(name) {
		case ".html", ".css", ".js":
			assert.Empty(t, remote.FindAllString(string(a.body), -1), name)
		}
	}
}

// The page carries the catalogue's name for its header, escaped, with an
// ETag of its own; without a name it is the embedded file as it is.
func TestUICatalogName(t *testing.T) {
	assets, err := uiAssets()
	require.NoError(t, err)
	index := assets["index.html"]
	require.Contains(t, string(index.body), catalogNameMeta, "index.html holds the element the name goes into")
	assert.Equal(t, index, withCatalogName(index, ""))
	named := withCatalogName(index, `shop "<b>"`)
	assert.Contains(t, string(named.body), `<meta name="sutura-catalogue" content="shop &#34;&lt;b&gt;&#34;">`)
	assert.NotContains(t, string(named.body), "<b>")
	assert.NotEqual(t, index.etag, named.etag)
}
