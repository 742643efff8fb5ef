package domain

// EditDistance is the Levenshtein distance between a and b, counted in
// bytes: the fewest single-byte insertions, deletions and substitutions
// that turn one into the other. It is how an error or a refusal names
// what its author most likely meant (a key, a metric); callers bound the
// lengths they compare, since the cost is len(a)·len(b).
func EditDistance(a, b string) int {
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
