package mdcatalog

import "sutura.dev/domain"

// likelyMeant returns the allowed key an unknown key is most likely a typo
// of: the one at the smallest edit distance, when that is at most two
// (audiance → audience, dimensons → dimensions), or "". A key that is not
// an identifier gets no suggestion: it is not named in the error either.
func likelyMeant(key string, allowed []string) string {
	if domain.CheckIdent(key) != nil {
		return ""
	}
	best, bestDist := "", 3
	for _, a := range allowed {
		if d := domain.EditDistance(key, a); d < bestDist {
			best, bestDist = a, d
		}
	}
	return best
}
