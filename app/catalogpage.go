package app

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"sync"

	"sutura.dev/domain"
)

// Listing the catalogue at scale (docs/contract.md §14). A listing is an
// ordered list of the caller's visible metrics (all of them, the ones a
// search matched, ranked, or the ones named); a response holds as many of
// them as fit in MaxCatalogBytes of JSON, with the knowledge about them,
// and a cursor to the rest.

// MaxCatalogBytes bounds the JSON of one describe_catalog response.
const MaxCatalogBytes = 64 << 10

// SummaryThreshold is the number of visible metrics above which a listing
// without a search gives summaries rather than full entries.
const SummaryThreshold = 25

// MetricSummary is a metric in a few words: its name, one line of its
// description, its grains and the names of the dimensions the caller may
// use.
type MetricSummary struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Grains      []domain.Grain `json:"grains"`
	Dimensions  []string       `json:"dimensions"`
}

// The sentences of a cursor that cannot continue.
const (
	errNotIssued = "was not issued by this server for this listing; pass a next_cursor back unchanged, with the same search and metrics"
	errStale     = "was issued for an older catalogue: the catalogue was re-pinned since (definition_digest changed); list again without cursor"
)

// catalogIndex is one caller class's view of one bundle, with what
// listing and searching it needs, computed once: the sizes of every entry
// and summary, the knowledge attached to each metric, the words of each.
type catalogIndex struct {
	view      CatalogView
	position  map[string]int // metric name → index in view.Metrics
	summaries []MetricSummary
	fullSize  []int
	sumSize   []int
	// refs are the metrics each knowledge item is about, in view order:
	// glossary, caveats, not_defined, examples. An item about no metric
	// goes with the first page of every listing.
	glossaryRefs, caveatRefs, exampleRefs [][]int
	glossarySize, caveatSize              []int
	notDefinedSize, exampleSize           []int
	words                                 wordIndex
}

// indexCache keeps the indexes of the bundle last described, by caller
// class. A re-pin replaces them all.
var indexCache struct {
	sync.Mutex
	bundle  *domain.Bundle
	indexes map[string]*catalogIndex
}

// maxCachedClasses bounds how many caller classes are kept per bundle.
const maxCachedClasses = 64

// visibilityKey names the class of callers who see the same catalogue as
// p: what a caller sees depends only on its audiences.
func visibilityKey(p domain.Principal) string {
	if p.AllAudiences {
		return "*"
	}
	a := slices.Clone(p.Audiences)
	slices.Sort(a)
	return strings.Join(slices.Compact(a), "\x00")
}

// catalogIndexOf returns the index of b as p sees it.
func catalogIndexOf(b *domain.Bundle, p domain.Principal) *catalogIndex {
	key := visibilityKey(p)
	indexCache.Lock()
	if indexCache.bundle == b {
		if ix, ok := indexCache.indexes[key]; ok {
			indexCache.Unlock()
			return ix
		}
	}
	indexCache.Unlock()
	ix := newCatalogIndex(DescribeBundle(b, p))
	indexCache.Lock()
	defer indexCache.Unlock()
	if indexCache.bundle != b || len(indexCache.indexes) >= maxCachedClasses {
		indexCache.bundle, indexCache.indexes = b, map[string]*catalogIndex{}
	}
	indexCache.indexes[key] = ix
	return ix
}

func jsonSize(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return MaxCatalogBytes
	}
	return len(b)
}

func newCatalogIndex(v CatalogView) *catalogIndex {
	ix := &catalogIndex{view: v, position: make(map[string]int, len(v.Metrics))}
	for i, m := range v.Metrics {
		ix.position[m.Name] = i
		s := summarize(m)
		ix.summaries = append(ix.summaries, s)
		ix.fullSize = append(ix.fullSize, jsonSize(m))
		ix.sumSize = append(ix.sumSize, jsonSize(s))
	}
	refs := func(names ...string) []int {
		var out []int
		for _, n := range names {
			if i, ok := ix.position[n]; ok && !slices.Contains(out, i) {
				out = append(out, i)
			}
		}
		return out
	}
	for _, g := range v.Glossary {
		ix.glossaryRefs = append(ix.glossaryRefs, refs(g.Means.Metric))
		ix.glossarySize = append(ix.glossarySize, jsonSize(g))
	}
	for _, c := range v.Caveats {
		var names []string
		for _, ref := range c.About {
			metric, _, _ := strings.Cut(ref, ".")
			names = append(names, metric)
		}
		ix.caveatRefs = append(ix.caveatRefs, refs(names...))
		ix.caveatSize = append(ix.caveatSize, jsonSize(c))
	}
	for _, n := range v.NotDefined {
		ix.notDefinedSize = append(ix.notDefinedSize, jsonSize(n))
	}
	for _, e := range v.Examples {
		ix.exampleRefs = append(ix.exampleRefs, refs(e.Question.Metrics...))
		ix.exampleSize = append(ix.exampleSize, jsonSize(e))
	}
	ix.words = indexWords(ix)
	return ix
}

// summarize is the summary of a metric: one line of its description.
func summarize(m MetricView) MetricSummary {
	s := MetricSummary{Name: m.Name, Description: oneLine(m.Description), Grains: m.Grains, Dimensions: []string{}}
	for _, d := range m.Dimensions {
		s.Dimensions = append(s.Dimensions, d.Name)
	}
	return s
}

// maxLineChars bounds the one line of a summary's description.
const maxLineChars = 200

// oneLine is the first paragraph of a description, unwrapped, cut after
// its first sentence when long, and at most maxLineChars characters.
func oneLine(desc string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(desc), "\n\n")
	line := strings.Join(strings.Fields(first), " ")
	if len([]rune(line)) > maxLineChars/2 {
		if i := strings.Index(line, ". "); i > 0 {
			line = line[:i+1]
		}
	}
	if r := []rune(line); len(r) > maxLineChars {
		line = strings.TrimSpace(string(r[:maxLineChars-1])) + "…"
	}
	return line
}

// listing is one ordered list of the index's metrics and how it is shown.
type listing struct {
	metrics   []int
	summaries bool
	// key binds a cursor to the request that began the listing.
	key string
}

// Describe answers one describe_catalog for caller (docs/contract.md §14):
// the page of the listing req asks for, as a CatalogView. Names in
// req.Metrics that are unknown or hidden from caller are refused as
// metric_unknown, the same for both; a cursor that this server did not
// issue for this listing, or issued before a re-pin, is a
// *domain.FieldError on cursor. It takes no admission slot and writes no
// audit record.
func (s *Surface) Describe(caller Caller, req DescribeRequest) (CatalogView, *domain.Reason, error) {
	b := s.cfg.Catalog.Bundle()
	ix := catalogIndexOf(b, caller.Principal)
	l, reason := ix.listing(req)
	if reason != nil {
		return CatalogView{}, reason, nil
	}
	offset, err := readCursor(req.Cursor, b.Digest(), l)
	if err != nil {
		return CatalogView{}, nil, err
	}
	v := ix.page(l, offset, b.Digest())
	s.withSpans(b, &v)
	return v, nil, nil
}

// listing is the listing req asks for.
func (ix *catalogIndex) listing(req DescribeRequest) (listing, *domain.Reason) {
	switch {
	case req.Metrics != nil:
		l := listing{key: "m\x00" + strings.Join(req.Metrics, ",")}
		for _, n := range req.Metrics {
			i, ok := ix.position[n]
			if !ok {
				r := domain.Refuse(domain.MetricUnknown, "there is no metric called %s", n)
				return listing{}, &r
			}
			l.metrics = append(l.metrics, i)
		}
		return l, nil
	case req.Search != "":
		return listing{metrics: ix.search(req.Search), summaries: true, key: "s\x00" + req.Search}, nil
	}
	l := listing{summaries: len(ix.view.Metrics) > SummaryThreshold, key: "all"}
	l.metrics = make([]int, len(ix.view.Metrics))
	for i := range l.metrics {
		l.metrics[i] = i
	}
	return l, nil
}

// envelopeBytes bounds the JSON of a page without its items: the fixed
// keys, the version and digest, a cursor and a total, brackets.
func envelopeBytes(v CatalogView) int {
	return 320 + len(v.DefinitionVersion) + len(v.DefinitionDigest)
}

// page is the part of l that begins at offset and fits in
// MaxCatalogBytes, with the knowledge about its metrics. An item of
// knowledge goes with the first metric of the listing it is about; one
// about no metric, with the first page. A single entry larger than the
// bound is sent alone.
func (ix *catalogIndex) page(l listing, offset int, digest string) CatalogView {
	v := ix.view
	out := CatalogView{
		DefinitionVersion: v.DefinitionVersion, DefinitionDigest: v.DefinitionDigest,
		Metrics: []MetricView{}, Glossary: []GlossaryView{}, Caveats: []CaveatView{},
		NotDefined: []NotDefinedView{}, Examples: []ExampleView{},
	}
	rank := make(map[int]int, len(l.metrics)) // metric → place in l
	for p, i := range l.metrics {
		rank[i] = p
	}
	// home is the place in l of the first metric an item is about; -1
	// when l holds none of them; 0 for an item about no metric.
	home := func(refs []int) int {
		if len(refs) == 0 {
			return 0
		}
		best := -1
		for _, i := range refs {
			if p, ok := rank[i]; ok && (best < 0 || p < best) {
				best = p
			}
		}
		return best
	}
	attached := make(map[int]int) // place → bytes of its knowledge
	homes := func(refs [][]int, sizes []int) []int {
		h := make([]int, len(refs))
		for k, r := range refs {
			h[k] = home(r)
			if h[k] >= 0 {
				attached[h[k]] += sizes[k] + 1
			}
		}
		return h
	}
	gHome := homes(ix.glossaryRefs, ix.glossarySize)
	cHome := homes(ix.caveatRefs, ix.caveatSize)
	eHome := homes(ix.exampleRefs, ix.exampleSize)
	for _, n := range ix.notDefinedSize {
		attached[0] += n + 1
	}

	used, end := envelopeBytes(v), offset
	if l.summaries {
		used += len(`,"summaries":[]`)
	}
	if offset == 0 && len(l.metrics) == 0 {
		used += attached[0]
	}
	for end < len(l.metrics) {
		i := l.metrics[end]
		cost := ix.fullSize[i] + 1 + attached[end]
		if l.summaries {
			cost = ix.sumSize[i] + 1 + attached[end]
		}
		if used+cost > MaxCatalogBytes && end > offset {
			break
		}
		used += cost
		end++
	}
	for _, i := range l.metrics[offset:end] {
		if l.summaries {
			out.Summaries = append(out.Summaries, ix.summaries[i])
		} else {
			out.Metrics = append(out.Metrics, v.Metrics[i])
		}
	}
	onPage := func(p int) bool { return p >= offset && p < end || p == 0 && offset == 0 }
	for k, g := range v.Glossary {
		if gHome[k] >= 0 && onPage(gHome[k]) {
			out.Glossary = append(out.Glossary, g)
		}
	}
	for k, c := range v.Caveats {
		if cHome[k] >= 0 && onPage(cHome[k]) {
			out.Caveats = append(out.Caveats, c)
		}
	}
	if offset == 0 {
		out.NotDefined = append(out.NotDefined, v.NotDefined...)
	}
	for k, e := range v.Examples {
		if eHome[k] >= 0 && onPage(eHome[k]) {
			out.Examples = append(out.Examples, e)
		}
	}
	if l.summaries && out.Summaries == nil {
		out.Summaries = []MetricSummary{}
	}
	if end < len(l.metrics) {
		out.NextCursor = issueCursor(digest, end, l)
	}
	if l.summaries || offset > 0 || end < len(l.metrics) {
		total := len(l.metrics)
		out.Total = &total
	}
	return out
}

// A cursor is the offset of the next page, bound to the bundle (a prefix
// of its digest) and to the listing (a hash of the request that began
// it), with a checksum: "c1.<digest16>.<offset>.<listing8>.<check6>",
// base64url. It is not secret; it only says where a listing stopped.

func listingHash(l listing) string {
	h := sha256.Sum256([]byte(l.key))
	return hex.EncodeToString(h[:4])
}

func cursorCheck(payload string) string {
	h := sha256.Sum256([]byte("sutura cursor\x00" + payload))
	return hex.EncodeToString(h[:3])
}

func digestPrefix(digest string) string {
	d := strings.TrimPrefix(digest, "sha256:")
	if len(d) > 16 {
		d = d[:16]
	}
	return d
}

func issueCursor(digest string, offset int, l listing) string {
	payload := "c1." + digestPrefix(digest) + "." + strconv.Itoa(offset) + "." + listingHash(l)
	return base64.RawURLEncoding.EncodeToString([]byte(payload + "." + cursorCheck(payload)))
}

// readCursor returns the offset cursor continues l at: 0 for no cursor.
func readCursor(cursor, digest string, l listing) (int, error) {
	if cursor == "" {
		return 0, nil
	}
	bad := &domain.FieldError{Field: "cursor", Problem: errNotIssued}
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return 0, bad
	}
	parts := strings.Split(string(raw), ".")
	if len(parts) != 5 || parts[0] != "c1" || cursorCheck(strings.Join(parts[:4], ".")) != parts[4] {
		return 0, bad
	}
	if parts[1] != digestPrefix(digest) {
		return 0, &domain.FieldError{Field: "cursor", Problem: errStale}
	}
	offset, err := strconv.Atoi(parts[2])
	if err != nil || parts[3] != listingHash(l) || offset <= 0 || offset >= len(l.metrics) {
		return 0, bad
	}
	return offset, nil
}

// ListMetrics is the summaries of the metrics caller may see, in
// catalogue order, at most limit of them from where cursor (a NextCursor
// of an earlier call, or "") left off: what a host lists as resources.
// Cursors are bound to the bundle as describe_catalog's are.
func (s *Surface) ListMetrics(caller Caller, cursor string, limit int) (MetricListing, error) {
	b := s.cfg.Catalog.Bundle()
	ix := catalogIndexOf(b, caller.Principal)
	l := listing{key: "resources", metrics: make([]int, len(ix.view.Metrics))}
	for i := range l.metrics {
		l.metrics[i] = i
	}
	if len(cursor) > MaxCursorBytes {
		return MetricListing{}, &domain.FieldError{Field: "cursor", Problem: errNotIssued}
	}
	offset, err := readCursor(cursor, b.Digest(), l)
	if err != nil {
		return MetricListing{}, err
	}
	end := min(offset+max(limit, 1), len(l.metrics))
	out := MetricListing{Total: len(l.metrics), Summaries: []MetricSummary{}}
	for _, i := range l.metrics[offset:end] {
		out.Summaries = append(out.Summaries, ix.summaries[i])
	}
	if end < len(l.metrics) {
		out.NextCursor = issueCursor(b.Digest(), end, l)
	}
	return out, nil
}

// MetricListing is one page of ListMetrics.
type MetricListing struct {
	Summaries  []MetricSummary
	NextCursor string
	Total      int
}

// describeCall is describe_catalog in the call pipeline: a refusal for
// unknown names, a not_a_question failure for a bad cursor.
func (s *Surface) describeCall(caller Caller, args []byte) Result {
	tool := domain.DescribeCatalog
	req, err := ParseDescribeCatalogArgs(args)
	if err != nil {
		return Result{Capability: tool, Failure: notAQuestion(err)}
	}
	v, reason, err := s.Describe(caller, req)
	switch {
	case err != nil:
		return Result{Capability: tool, Failure: notAQuestion(err)}
	case reason != nil:
		return Result{Capability: tool, Refusal: reason, Cost: domain.Cost{Sources: []string{}, Measured: true}}
	}
	return Result{Capability: tool, Catalog: &v, Cost: domain.Cost{Sources: []string{}, Measured: true}}
}
