package app

import (
	"slices"
	"strings"
	"unicode"

	"sutura.dev/domain"
)

// Ranked search over the visible catalogue (docs/contract.md §14). A
// metric's words are those of its name, its description, the names of
// the dimensions the caller may see, and the glossary terms and synonyms
// the caller may see that mean it; each kind weighs differently. A query
// word scores the best weight among the metric's words it equals, and
// half of it for a word it begins (of three letters or more). Metrics
// that score nothing are not listed; the rest are ranked by score, then
// by name.

// Weights of where a word was found.
const (
	weightName        = 8
	weightGlossary    = 6
	weightDimension   = 3
	weightDescription = 2
	// weightWholeName is added when the query is the metric's name.
	weightWholeName = 20
)

// metricWords are the words of one metric with their weights.
type metricWords map[string]int

// posting is one metric holding a word, with the word's weight there.
type posting struct{ metric, weight int }

// wordIndex finds the metrics holding a word, or a word beginning with a
// prefix, without reading every metric.
type wordIndex struct {
	vocabulary []string // sorted
	postings   map[string][]posting
}

// stopWords are left out of a query unless it holds nothing else.
var stopWords = map[string]bool{
	"a": true, "an": true, "the": true, "of": true, "by": true, "per": true, "and": true, "or": true,
	"in": true, "for": true, "to": true, "what": true, "how": true, "is": true, "are": true, "on": true,
	"with": true, "my": true, "our": true, "me": true, "show": true, "many": true, "much": true,
}

// words splits text into lowercase words of letters and digits; an
// underscore separates words, so total_revenue is total and revenue.
func words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

func indexWords(ix *catalogIndex) wordIndex {
	out := make([]metricWords, len(ix.view.Metrics))
	add := func(w metricWords, text string, weight int) {
		for _, t := range words(text) {
			if w[t] < weight {
				w[t] = weight
			}
		}
	}
	for i, m := range ix.view.Metrics {
		w := metricWords{}
		add(w, m.Description, weightDescription)
		for _, d := range m.Dimensions {
			add(w, d.Name, weightDimension)
		}
		add(w, m.Name, weightName)
		out[i] = w
	}
	for _, g := range ix.view.Glossary {
		i, ok := ix.position[g.Means.Metric]
		if !ok {
			continue
		}
		add(out[i], g.Term, weightGlossary)
		for _, s := range g.Synonyms {
			add(out[i], s, weightGlossary)
		}
	}
	wi := wordIndex{postings: map[string][]posting{}}
	for i, w := range out {
		for t, weight := range w {
			wi.postings[t] = append(wi.postings[t], posting{i, weight})
		}
	}
	for t := range wi.postings {
		wi.vocabulary = append(wi.vocabulary, t)
	}
	slices.Sort(wi.vocabulary)
	return wi
}

// search returns the metrics matching query, best first.
func (ix *catalogIndex) search(query string) []int {
	var q []string
	for _, w := range words(query) {
		if !stopWords[w] && !slices.Contains(q, w) {
			q = append(q, w)
		}
	}
	if len(q) == 0 {
		q = slices.Compact(words(query))
	}
	whole := strings.Join(words(query), "_")
	type hit struct{ metric, score int }
	n := len(ix.view.Metrics)
	scores, best := make([]int, n), make([]int, n)
	for _, qw := range q {
		clear(best)
		for _, p := range ix.words.postings[qw] {
			best[p.metric] = p.weight
		}
		if len(qw) >= 3 {
			start, _ := slices.BinarySearch(ix.words.vocabulary, qw)
			for _, t := range ix.words.vocabulary[start:] {
				if !strings.HasPrefix(t, qw) {
					break
				}
				for _, p := range ix.words.postings[t] {
					best[p.metric] = max(best[p.metric], p.weight/2)
				}
			}
		}
		for i, b := range best {
			scores[i] += b
		}
	}
	var hits []hit
	for i, score := range scores {
		if score == 0 {
			continue
		}
		if strings.EqualFold(ix.view.Metrics[i].Name, whole) {
			score += weightWholeName
		}
		hits = append(hits, hit{i, score})
	}
	slices.SortFunc(hits, func(a, b hit) int {
		if a.score != b.score {
			return b.score - a.score
		}
		return strings.Compare(ix.view.Metrics[a.metric].Name, ix.view.Metrics[b.metric].Name)
	})
	out := make([]int, len(hits))
	for k, h := range hits {
		out[k] = h.metric
	}
	return out
}

// SearchBundle returns the names of the metrics of b that p may see and
// that match search, best first: the ranking of describe_catalog's
// search, for tools that read a bundle without a surface (`sutura catalog
// --search`). An error is the *domain.FieldError describe_catalog would
// give the same search.
func SearchBundle(b *domain.Bundle, p domain.Principal, search string) ([]string, error) {
	if err := checkSearch(search); err != nil {
		return nil, err
	}
	ix := catalogIndexOf(b, p)
	found := ix.search(search)
	names := make([]string, len(found))
	for k, i := range found {
		names[k] = ix.view.Metrics[i].Name
	}
	return names, nil
}
