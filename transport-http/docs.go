package httpapi

import (
	"bytes"
	"encoding/json"
	"html/template"
	"net/http"
	"slices"
	"strings"
)

// The /docs page is rendered on the server from the generated document: it
// is self-contained (no script, no stylesheet or font from elsewhere), so it
// works where the deployment has no internet, and its Content-Security-Policy
// forbids loading anything.

type docsPage struct {
	Info apiInfo
	// Open says this deployment asks no token: no access token and no
	// inbound identity are configured, so a gated route says so instead
	// of asking for a bearer token.
	Open       bool
	Operations []docsOperation
	Schemas    []docsSchema
}

type docsOperation struct {
	ID, Method, Path, Summary, Description string
	Scopes                                 []string
	Public                                 bool
	Request                                string // the request body schema's name
	Responses                              []docsResponse
}

type docsResponse struct{ Status, Description string }

type docsSchema struct{ Name, JSON string }

// renderDocs renders the page of doc; open says the deployment asks no
// token (docsPage.Open).
func renderDocs(doc *openAPI, open bool) ([]byte, error) {
	page := docsPage{Info: doc.Info, Open: open}
	paths := make([]string, 0, len(doc.Paths))
	for p := range doc.Paths {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		item := doc.Paths[p]
		for _, mo := range []struct {
			method string
			op     *operation
		}{{http.MethodGet, item.Get}, {http.MethodPost, item.Post}} {
			if mo.op != nil {
				page.Operations = append(page.Operations, docsOp(mo.method, p, mo.op))
			}
		}
	}
	names := make([]string, 0, len(doc.Components.Schemas))
	for n := range doc.Components.Schemas {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		var b bytes.Buffer
		if err := json.Indent(&b, doc.Components.Schemas[n], "", "  "); err != nil {
			return nil, err
		}
		page.Schemas = append(page.Schemas, docsSchema{Name: n, JSON: b.String()})
	}
	var buf bytes.Buffer
	if err := docsTemplate.Execute(&buf, page); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func docsOp(method, path string, op *operation) docsOperation {
	d := docsOperation{ID: op.OperationID, Method: method, Path: path, Summary: op.Summary, Description: op.Description, Public: len(op.Security) == 0}
	for _, req := range op.Security {
		for _, scopes := range req {
			for _, s := range scopes {
				if !slices.Contains(d.Scopes, s) {
					d.Scopes = append(d.Scopes, s)
				}
			}
		}
	}
	if op.RequestBody != nil {
		for _, mt := range op.RequestBody.Content {
			d.Request = strings.TrimPrefix(mt.Schema.Ref, "#/components/schemas/")
		}
	}
	statuses := make([]string, 0, len(op.Responses))
	for s := range op.Responses {
		statuses = append(statuses, s)
	}
	slices.Sort(statuses)
	for _, s := range statuses {
		d.Responses = append(d.Responses, docsResponse{Status: s, Description: op.Responses[s].Description})
	}
	return d
}

// docsCSP forbids the page from loading or running anything.
const docsCSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

var docsTemplate = template.Must(template.New("docs").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Info.Title}} API {{.Info.Version}}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;line-height:1.45;color:#1d1d1f}
h1{margin-bottom:.2rem}.summary{color:#555;margin-top:0}
section.op{border:1px solid #ddd;border-radius:6px;margin:1rem 0;padding:.6rem 1rem}
.method{display:inline-block;min-width:3.5rem;font-weight:700;font-family:ui-monospace,monospace}
.GET{color:#0b6e4f}.POST{color:#8a4b00}
code,pre{font-family:ui-monospace,monospace;font-size:.9em}
pre{background:#f6f6f6;padding:.6rem;overflow-x:auto}
table{border-collapse:collapse}td{border-top:1px solid #eee;padding:.2rem .6rem;vertical-align:top}
.scope{background:#eef;padding:0 .3rem;border-radius:3px}
</style>
</head>
<body>
<h1>{{.Info.Title}}</h1>
<p class="summary">{{.Info.Summary}}</p>
<p>{{.Info.Description}}</p>
<p>Version {{.Info.Version}} &middot; the machine-readable document is <a href="openapi.json"><code>/openapi.json</code></a> (OpenAPI 3.1).</p>
<h2>Operations</h2>
{{range .Operations}}<section class="op" id="{{.ID}}">
<h3><span class="method {{.Method}}">{{.Method}}</span> <code>{{.Path}}</code> &mdash; {{.Summary}}</h3>
{{if .Description}}<p>{{.Description}}</p>{{end}}
<p>{{if .Public}}No token needed.{{else if $.Open}}No token needed on this deployment (no access token and no inbound identity are configured){{if .Scopes}}; with inbound identity it needs scope {{range $i, $s := .Scopes}}{{if $i}} or {{end}}<span class="scope">{{$s}}</span>{{end}}{{end}}.{{else}}Bearer token{{if .Scopes}}; scope {{range $i, $s := .Scopes}}{{if $i}} or {{end}}<span class="scope">{{$s}}</span>{{end}}{{end}}.{{end}}</p>
{{if .Request}}<p>Request body: <a href="#schema-{{.Request}}"><code>{{.Request}}</code></a></p>{{end}}
<table>{{range .Responses}}<tr><td><code>{{.Status}}</code></td><td>{{.Description}}</td></tr>{{end}}</table>
</section>
{{end}}
<h2>Schemas</h2>
{{range .Schemas}}<details id="schema-{{.Name}}"><summary><code>{{.Name}}</code></summary><pre>{{.JSON}}</pre></details>
{{end}}
</body>
</html>
`))
