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
		if d := levenshtein(key, a); d < bestDist {
			best, bestDist = a, d
		}
	}
	return best
}

// levenshtein is the edit distance of two identifiers (at most 63 bytes
// each, so the table is small).
func levenshtein(a, b string) int {
	row := make([]int, len(b)+1)
	for j := range row {
		row[j] = j
	}
	for i := 1; i <= len(a); i++ {
		diag := row[0]
		row[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			diag, row[j] = row[j], min(row[j]+1, row[j-1]+1, diag+cost)
		}
	}
	return row[len(b)]
}
