package httpapi

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"
)

// The catalogue browser (/ui/) is a page for people: the catalogue, a
// question builder and the answer as a table and a chart. It is static —
// HTML, CSS, JavaScript and the vendored chart library (uPlot), embedded
// in the binary — and talks to /v1/catalog and /v1/query like any other
// client, so what a person sees is exactly what the gates let the caller
// see. The page itself holds no catalogue data: it wears the layers of
// /docs (rate limit, Host allowlist), because a browser's navigation
// cannot carry a bearer token; the page asks for the token and sends it
// with every /v1 call.

// UIPath is where the catalogue browser is served; GET / redirects there.
const UIPath = "/ui/"

//go:embed ui
var uiFS embed.FS

// uiCSP lets the page load its own scripts, styles and images and talk to
// its own origin only; no inline script or style, no plugin, no base or
// form target, no framing, and Trusted Types with no policy, so no string
// can ever become HTML or script.
const uiCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'; require-trusted-types-for 'script'; trusted-types 'none'"

// uiAsset is one embedded file, ready to serve.
type uiAsset struct {
	body        []byte
	contentType string
	etag        string
}

// uiTypes are the content types of the files the page is made of; a file
// of another kind is not served.
var uiTypes = map[string]string{
	".html":    "text/html; charset=utf-8",
	".js":      "text/javascript; charset=utf-8",
	".css":     "text/css; charset=utf-8",
	".svg":     "image/svg+xml",
	".png":     "image/png",
	".LICENSE": "text/plain; charset=utf-8",
}

// uiAssets reads the embedded files once: path below /ui/ → asset.
var uiAssets = sync.OnceValues(func() (map[string]uiAsset, error) {
	root, err := fs.Sub(uiFS, "ui")
	if err != nil {
		return nil, err
	}
	assets := map[string]uiAsset{}
	err = fs.WalkDir(root, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		ct, ok := uiTypes[path.Ext(p)]
		if !ok {
			return nil
		}
		body, err := fs.ReadFile(root, p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		assets[p] = uiAsset{body: body, contentType: ct, etag: `"` + hex.EncodeToString(sum[:16]) + `"`}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("httpapi: reading the embedded catalogue browser: %w", err)
	}
	if _, ok := assets["index.html"]; !ok {
		return nil, fmt.Errorf("httpapi: the embedded catalogue browser has no index.html")
	}
	return assets, nil
})

// serveUI serves the page (at /ui/) and its assets, with headers that
// keep it from loading anything from elsewhere, being framed or leaking
// its address. Assets are revalidated on every load (ETag), so a new
// binary's page is never mixed with an old one's scripts.
func (s *Server) serveUI(w http.ResponseWriter, r *http.Request) {
	assets, err := uiAssets()
	if err != nil {
		s.log.Warn("http: catalogue browser unavailable", "error", err)
		writeFailure(w, Internal, "the catalogue browser is not available in this build")
		return
	}
	name := strings.TrimPrefix(r.URL.Path, UIPath)
	if name == "" {
		name = "index.html"
	}
	a, ok := assets[name]
	if !ok {
		writeFailure(w, NotFound, "there is no such file in the catalogue browser; it starts at "+UIPath)
		return
	}
	h := w.Header()
	h.Set("Content-Security-Policy", uiCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=(), usb=()")
	h.Set("Cache-Control", "no-cache")
	if name == "index.html" {
		a = withCatalogName(a, s.cfg.CatalogName)
	}
	h.Set("Content-Type", a.contentType)
	h.Set("ETag", a.etag)
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(a.body))
}

// catalogNameMeta is the element of index.html that carries the
// catalogue's name to the page's header.
const catalogNameMeta = `<meta name="sutura-catalogue" content="">`

// withCatalogName is the page with the catalogue's name (HTML-escaped) in
// its catalogNameMeta element, and an ETag of its own.
func withCatalogName(a uiAsset, name string) uiAsset {
	if name == "" {
		return a
	}
	body := bytes.Replace(a.body, []byte(catalogNameMeta),
		[]byte(`<meta name="sutura-catalogue" content="`+html.EscapeString(name)+`">`), 1)
	sum := sha256.Sum256(body)
	return uiAsset{body: body, contentType: a.contentType, etag: `"` + hex.EncodeToString(sum[:16]) + `"`}
}

// redirectToUI sends a browser that opens the server's root to the page.
func redirectToUI(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, UIPath, http.StatusFound)
}
