package main

import "strconv"

// plural writes a count with the noun that agrees with it: "1 model",
// "2 models", "0 models".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
