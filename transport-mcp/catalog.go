package mcpserver

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"sutura.dev/app"
	"sutura.dev/domain"
)

// The catalogue as MCP resources, a prompt and completions
// (docs/contract.md §14). Every list, read and completion is the caller's
// view, decided by the surface (app.Surface.ListMetrics, MetricDocument,
// CompleteMetrics, CompleteDimensions, AskAboutMetric); this file only
// renders it. A metric the caller may not see is not listed, completed or
// read, and reading it is the same not-found as a metric that does not
// exist.

// The URIs and names of the catalogue's MCP features.
const (
	// CatalogURI is the resource holding the first page of the catalogue's
	// summary listing (describe_catalog {"search"} without words).
	CatalogURI = "sutura://catalog"
	// MetricURIPrefix begins the URI of every metric's resource.
	MetricURIPrefix = "sutura://metrics/"
	// MetricURITemplate is the resource template of the metrics.
	MetricURITemplate = MetricURIPrefix + "{name}"
	// PromptAskAboutMetric is the prompt a host can offer a person.
	PromptAskAboutMetric = "ask_about_metric"
	// resourcePageSize is how many metrics one resources/list page holds
	// (far under 64 KiB: a summary line is a few hundred bytes).
	resourcePageSize = 100
	// listTTLMs is the cache hint of every list and read: a re-pin
	// notifies subscribers sooner.
	listTTLMs = 60_000
)

// textResourceNotFound is the one answer to reading a resource the caller
// may not see or that does not exist: the two are indistinguishable.
const textResourceNotFound = "resource not found: there is no resource at this URI for you; resources/list and the template sutura://metrics/{name} name the ones you may read"

func (s *Server) addCatalogFeatures() {
	s.mcp.AddResource(&mcp.Resource{
		URI: CatalogURI, Name: "catalog", Title: "The metric catalogue (summaries)", MIMEType: "application/json",
		Description: "The first page of the catalogue as you may see it: each metric's name, one line of description, grains and dimension names. describe_catalog searches it and pages through the rest.",
	}, s.readCatalog)
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: MetricURITemplate, Name: "metric", Title: "A metric's definition", MIMEType: "text/markdown",
		Description: "One metric as an agent should read it: description, grains, dimensions with their allowed values, required filters in words, caveats, anchor.",
	}, s.readMetric)
	s.mcp.AddPrompt(&mcp.Prompt{
		Name: PromptAskAboutMetric, Title: "Ask about a metric",
		Description: "Answer a question about one certified metric, optionally grouped by one of its dimensions: the guidance to agents and the metric's definition.",
		Arguments: []*mcp.PromptArgument{
			{Name: "metric", Title: "Metric", Description: "The name of a metric in the catalogue.", Required: true},
			{Name: "dimension", Title: "Dimension", Description: "A dimension the metric declares, to group the answer by."},
		},
	}, s.getPrompt)
}

// readCatalog renders the first page of summaries (describe_catalog with
// summaries forced: the listing as resources/list has it).
func (s *Server) readCatalog(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	caller := s.caller(ctx)
	page, err := s.surface.ListMetrics(caller, "", resourcePageSize)
	if err != nil {
		return nil, ownError(jsonrpc.CodeInternalError, textInternalError)
	}
	body, err := catalogJSON(s.surface.Bundle(), page)
	if err != nil {
		return nil, ownError(jsonrpc.CodeInternalError, textInternalError)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: CatalogURI, MIMEType: "application/json", Text: string(body)}}}, nil
}

// readMetric renders one metric's resource, or the one not-found.
func (s *Server) readMetric(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	name, ok := strings.CutPrefix(uri, MetricURIPrefix)
	if !ok || domain.CheckIdent(name) != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	doc, ok := s.surface.MetricDocument(s.caller(ctx), name)
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: doc}}}, nil
}

// getPrompt renders ask_about_metric for the caller; a metric it may not
// see, or a dimension the metric does not declare, is invalid params, the
// same for hidden and unknown.
func (s *Server) getPrompt(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	args := req.Params.Arguments
	metric, dimension := args["metric"], args["dimension"]
	for k := range args {
		if k != "metric" && k != "dimension" {
			return nil, ownError(jsonrpc.CodeInvalidParams, "invalid params: ask_about_metric takes the arguments metric and dimension only")
		}
	}
	if domain.CheckIdent(metric) != nil || (dimension != "" && domain.CheckIdent(dimension) != nil) {
		return nil, ownError(jsonrpc.CodeInvalidParams, "invalid params: metric (required) and dimension must be names from the catalogue")
	}
	text, ok := s.surface.AskAboutMetric(s.caller(ctx), metric, dimension)
	if !ok {
		return nil, ownError(jsonrpc.CodeInvalidParams, "invalid params: there is no such metric for you, or it does not declare that dimension; completion/complete offers the names")
	}
	return &mcp.GetPromptResult{
		Description: "Ask about " + metric,
		Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}},
	}, nil
}

// complete answers completion/complete for the template's name and the
// prompt's metric (visible metric names by prefix) and the prompt's
// dimension (the dimensions the metric in the context declares). Anything
// else completes to nothing.
func (s *Server) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	p := req.Params
	caller := s.caller(ctx)
	var values []string
	total := 0
	switch {
	case p.Ref.Type == "ref/resource" && p.Ref.URI == MetricURITemplate && p.Argument.Name == "name",
		p.Ref.Type == "ref/prompt" && p.Ref.Name == PromptAskAboutMetric && p.Argument.Name == "metric":
		values, total = s.surface.CompleteMetrics(caller, p.Argument.Value)
	case p.Ref.Type == "ref/prompt" && p.Ref.Name == PromptAskAboutMetric && p.Argument.Name == "dimension":
		metric := ""
		if p.Context != nil {
			metric = p.Context.Arguments["metric"]
		}
		values, total = s.surface.CompleteDimensions(caller, metric, p.Argument.Value)
	default:
		values = []string{}
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values, Total: total, HasMore: total > len(values)}}, nil
}

// listResources is resources/list, answered from the caller's view with
// the surface's cursors: the resources registered with the SDK
// (sutura://catalog; a host's own) on the first page, then one resource
// per visible metric, resourcePageSize a page.
func (s *Server) listResources(ctx context.Context, req *mcp.ListResourcesRequest, next mcp.MethodHandler) (*mcp.ListResourcesResult, error) {
	cursor := ""
	if req.Params != nil {
		cursor = req.Params.Cursor
	}
	page, err := s.surface.ListMetrics(s.caller(ctx), cursor, resourcePageSize)
	if err != nil {
		return nil, ownError(jsonrpc.CodeInvalidParams, "invalid params: the cursor was not issued by this server for this list, or the catalogue was re-pinned since; list again without a cursor")
	}
	res := &mcp.ListResourcesResult{Resources: []*mcp.Resource{}, NextCursor: page.NextCursor}
	if cursor == "" {
		static, err := next(ctx, "resources/list", &mcp.ListResourcesRequest{Session: req.Session, Params: &mcp.ListResourcesParams{}})
		if list, ok := static.(*mcp.ListResourcesResult); ok && err == nil {
			res.Resources = append(res.Resources, list.Resources...)
		}
	}
	for _, m := range page.Summaries {
		res.Resources = append(res.Resources, &mcp.Resource{URI: MetricURIPrefix + m.Name, Name: m.Name, Description: m.Description, MIMEType: "text/markdown"})
	}
	res.TTLMs, res.CacheScope = listTTLMs, "private"
	return res, nil
}

// cacheHints sets the cache hints of the results the SDK builds: every
// list and read may be kept listTTLMs; what depends on the caller (a read
// of the catalogue, the tools when scopes narrow them) is private.
func (s *Server) cacheHints(_ context.Context, req mcp.Request, c *mcp.Cacheable) {
	c.TTLMs = listTTLMs
	switch req.(type) {
	case *mcp.ReadResourceRequest:
		c.CacheScope = "private"
	case *mcp.ListToolsRequest:
		if s.opts.EnforceScopes {
			c.CacheScope = "private"
		}
	}
	if c.CacheScope == "" {
		c.CacheScope = "public"
	}
}

// catalogJSON is the body of sutura://catalog.
func catalogJSON(b *domain.Bundle, page app.MetricListing) ([]byte, error) {
	return json.Marshal(struct {
		DefinitionVersion string              `json:"definition_version"`
		DefinitionDigest  string              `json:"definition_digest"`
		Summaries         []app.MetricSummary `json:"summaries"`
		Total             int                 `json:"total"`
		More              string              `json:"more,omitempty"`
	}{b.Version(), b.Digest(), page.Summaries, page.Total, moreText(page)})
}

func moreText(page app.MetricListing) string {
	if page.NextCursor == "" {
		return ""
	}
	return "this page lists the first metrics only: describe_catalog with search finds any metric, and pages through them all"
}
