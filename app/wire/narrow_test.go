package wire

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// narrowings lists what the generated manifest takes away from the
// committed one: a tool, a property or an enum value removed, a type,
// pattern, format or const changed, a requirement or a bound added, a bound
// tightened. It is empty when the manifest version was raised.
func narrowings(t *testing.T, oldJSON, newJSON []byte) []string {
	t.Helper()
	var oldM, newM map[string]any
	require.NoError(t, json.Unmarshal(oldJSON, &oldM))
	require.NoError(t, json.Unmarshal(newJSON, &newM))
	if newM["manifest_version"].(float64) > oldM["manifest_version"].(float64) {
		return nil
	}
	oldKeys, newKeys := map[string]bool{}, map[string]bool{}
	oldBounds, newBounds := map[string]float64{}, map[string]float64{}
	flatten("", oldM["tools"], oldKeys, oldBounds)
	flatten("", newM["tools"], newKeys, newBounds)
	var out []string
	for k := range oldKeys {
		if !newKeys[k] {
			out = append(out, "lost "+k)
		}
	}
	for k := range newKeys {
		if !oldKeys[k] && isConstraint(k) {
			out = append(out, "gained "+k)
		}
	}
	for k, nv := range newBounds {
		ov, had := oldBounds[k]
		lower := strings.Contains(k, ".min")
		switch {
		case !had:
			out = append(out, "gained the bound "+k)
		case lower && nv > ov, !lower && nv < ov:
			out = append(out, "tightened "+k)
		}
	}
	slices.Sort(out)
	return out
}

// flatten records the paths of properties and of scalar values (enum
// values and required names one by one) in keys, and numeric bounds in
// bounds; tools are keyed by id.
func flatten(path string, v any, keys map[string]bool, bounds map[string]float64) {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			switch k {
			case "description", "title":
				continue
			case "minimum", "maximum", "minItems", "maxItems", "minLength", "maxLength":
				bounds[path+"."+k] = c.(float64)
				continue
			}
			keys[path+"."+k] = true
			flatten(path+"."+k, c, keys, bounds)
		}
	case []any:
		for i, c := range x {
			key := strconv.Itoa(i)
			switch m := c.(type) {
			case map[string]any:
				if m["id"] != nil {
					key = toString(m["id"])
				}
			case string:
				keys[path+"="+toString(c)] = true
				continue
			}
			flatten(path+"["+key+"]", c, keys, bounds)
		}
	default:
		keys[path+"="+toString(v)] = true
	}
}

func toString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func isConstraint(k string) bool {
	for _, c := range []string{".required=", ".pattern=", ".const=", ".format="} {
		if strings.Contains(k, c) {
			return true
		}
	}
	return false
}

func TestNarrowingNeedsANewManifestVersion(t *testing.T) {
	base := `{"manifest_version":1,"tools":[{"id":"ask_metric","input_schema":{"type":"object","properties":{"a":{"type":"string","enum":["x","y"]},"n":{"type":"integer","maximum":10}},"required":["a"]}}]}`
	for _, tc := range []struct {
		name, next string
		want       []string
	}{
		{"same", base, nil},
		{"widened", `{"manifest_version":1,"tools":[{"id":"ask_metric","input_schema":{"type":"object","properties":{"a":{"type":"string","enum":["x","y","z"]},"b":{"type":"string"},"n":{"type":"integer","maximum":20}},"required":["a"]}}]}`, nil},
		{"field removed", `{"manifest_version":1,"tools":[{"id":"ask_metric","input_schema":{"type":"object","properties":{"n":{"type":"integer","maximum":10}},"required":["a"]}}]}`,
			[]string{`lost ["ask_metric"].input_schema.properties.a`}},
		{"enum narrowed", `{"manifest_version":1,"tools":[{"id":"ask_metric","input_schema":{"type":"object","properties":{"a":{"type":"string","enum":["x"]},"n":{"type":"integer","maximum":10}},"required":["a"]}}]}`,
			[]string{`lost ["ask_metric"].input_schema.properties.a.enum="y"`}},
		{"bound tightened", `{"manifest_version":1,"tools":[{"id":"ask_metric","input_schema":{"type":"object","properties":{"a":{"type":"string","enum":["x","y"]},"n":{"type":"integer","maximum":5}},"required":["a"]}}]}`,
			[]string{`tightened ["ask_metric"].input_schema.properties.n.maximum`}},
		{"requirement added", `{"manifest_version":1,"tools":[{"id":"ask_metric","input_schema":{"type":"object","properties":{"a":{"type":"string","enum":["x","y"]},"n":{"type":"integer","maximum":10}},"required":["a","n"]}}]}`,
			[]string{`gained ["ask_metric"].input_schema.required="n"`}},
		{"version raised", `{"manifest_version":2,"tools":[]}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := narrowings(t, []byte(base), []byte(tc.next))
			if len(tc.want) == 0 {
				assert.Empty(t, got)
			}
			for _, w := range tc.want {
				assert.Contains(t, got, w)
			}
		})
	}
}
