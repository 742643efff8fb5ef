package main

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// question is one question of the soak: its arguments (as JSON for HTTP,
// as a map for MCP) and the outcome it must get ("answer", or "refusal
// <code>").
type question struct {
	json string
	args map[string]any
	want string
}

// questions reads the catalogue of the server at base and returns the
// soak's questions: each metric by month over 2025 without a dimension,
// by its first, by its second and by both (64 over the demo), and one
// the contract refuses (a filter value outside the allowlist:
// dimension_value_not_allowed).
func questions(base string) ([]question, error) {
	resp, err := http.Get(base + "/v1/catalog")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var catalog struct {
		Metrics []struct {
			Name       string
			Dimensions []struct{ Name string }
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&catalog); err != nil {
		return nil, fmt.Errorf("the catalogue: %w", err)
	}
	var out []question
	for _, m := range catalog.Metrics {
		var names []string
		for _, d := range m.Dimensions {
			names = append(names, d.Name)
		}
		combos := [][]string{{}}
		if len(names) >= 1 {
			combos = append(combos, names[:1])
		}
		if len(names) >= 2 {
			combos = append(combos, names[1:2], names[:2])
		}
		for _, dims := range combos {
			q, err := newQuestion(map[string]any{"metrics": []string{m.Name}, "grain": "month",
				"range": map[string]any{"start": "2025-01-01", "end": "2026-01-01"}, "dimensions": dims}, "answer")
			if err != nil {
				return nil, err
			}
			out = append(out, q)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the catalogue has no metric")
	}
	refused, err := newQuestion(map[string]any{"metrics": []string{catalog.Metrics[0].Name}, "grain": "month",
		"range":   map[string]any{"start": "2025-01-01", "end": "2026-01-01"},
		"filters": []any{map[string]any{"op": "eq", "dimension": "channel", "value": "a value nobody allows"}}},
		"refusal dimension_value_not_allowed")
	return append(out, refused), err
}

func newQuestion(args map[string]any, want string) (question, error) {
	b, err := json.Marshal(args)
	return question{json: string(b), args: args, want: want}, err
}
