package importread_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sutura.dev/adapters/importread"
)

// errFormat stands for an importer's ErrMalformed.
var errFormat = errors.New("the input is not a well-formed test model")

// planted is a value of the input no message may quote.
const planted = "zz-planted-77"

func TestNodesWalkMappingsListsAndMerges(t *testing.T) {
	errs := importread.NewErrors(errFormat)
	docs, ok := errs.Parse("m.yml", []byte(`base: &base {agg: sum, expr: amount}
models:
  - name: orders
    measures:
      - <<: *base
        name: total
      - {name: n, agg: count}
---
other: ~
`))
	require.True(t, ok)
	require.Len(t, docs, 2)
	models := docs[0].List("models")
	require.Len(t, models, 1)
	assert.Equal(t, "orders", models[0].Str("name"))
	measures := models[0].List("measures")
	require.Len(t, measures, 2)
	assert.Equal(t, "sum", measures[0].Str("agg"), "a merge key supplies what the mapping lacks")
	assert.Equal(t, "total", measures[0].Str("name"))
	assert.Equal(t, []string{"name", "agg"}, measures[1].Keys())
	assert.Equal(t, 5, measures[0].Line())
	assert.Equal(t, "m.yml", measures[0].File())
	other, ok := docs[1].Get("other")
	require.True(t, ok)
	assert.True(t, other.IsNull())
	missing, ok := docs[1].Get("nothing")
	assert.False(t, ok)
	assert.False(t, missing.Present())
	assert.Empty(t, missing.Str("x"), "an absent value answers without panicking")
	assert.Zero(t, errs.Len())
}

func TestMalformedValuesNameTheirPathNeverTheValue(t *testing.T) {
	errs := importread.NewErrors(errFormat)
	docs, ok := errs.Parse("m.yml", []byte("models:\n  - name: ["+planted+"]\n    measures: "+planted+"\n    model: "+planted+"\n"))
	require.True(t, ok)
	m := docs[0].List("models")[0]
	_ = m.Str("name")
	_ = m.List("measures")
	_, _ = m.Object("model")
	err := errs.Err()
	require.Error(t, err)
	assert.ErrorIs(t, err, errFormat)
	assert.NotContains(t, err.Error(), planted)
	assert.Equal(t, "m.yml:2: models[0].name must be a text value\n"+
		"m.yml:3: models[0].measures must be a list\n"+
		"m.yml:4: models[0].model must be a mapping", err.Error())
	var e *importread.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, "m.yml", e.File)
}

func TestParseIsBounded(t *testing.T) {
	for _, tc := range []struct {
		name, data, want string
	}{
		{"a syntax error keeps only its line", "a: 1\nb: 2\n c: " + planted + "\n", "m.yml:3: is not valid YAML or JSON"},
		{"a syntax error without a line", "a: 1\nb: [" + planted + "\n", "m.yml:1: is not valid YAML or JSON"},
		{"too many documents", strings.Repeat("a: 1\n---\n", importread.MaxDocuments+1), "holds more than 10000 YAML documents"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := importread.NewErrors(errFormat)
			_, ok := errs.Parse("m.yml", []byte(tc.data))
			assert.False(t, ok)
			require.Error(t, errs.Err())
			assert.Contains(t, errs.Err().Error(), tc.want)
			assert.NotContains(t, errs.Err().Error(), planted)
		})
	}

	// An alias bomb: ten levels of ten aliases each would be 10^10 values.
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 10; i++ {
		b.WriteString("a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [")
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*a" + string(rune('0'+i-1)))
		}
		b.WriteString("]\n")
	}
	errs := importread.NewErrors(errFormat)
	docs, ok := errs.Parse("bomb.yml", []byte(b.String()))
	require.True(t, ok)
	var walk func(n importread.Node) int
	walk = func(n importread.Node) int {
		total := 1
		for _, item := range n.Items() {
			total += walk(item)
		}
		return total
	}
	top, _ := docs[0].Get("a9")
	walked := walk(top)
	assert.LessOrEqual(t, walked, importread.MaxValues+1, "the walk stops at the bound")
	require.Equal(t, 1, errs.Len())
	assert.Regexp(t, `^bomb\.yml:\d+: expands to more than 1048576 values \(through YAML aliases\)$`, errs.Err().Error())
}

func TestErrCountsWhatItDoesNotList(t *testing.T) {
	errs := importread.NewErrors(errFormat)
	assert.NoError(t, errs.Err())
	for range importread.MaxErrors + 5 {
		errs.Add("m.yml", 1, "is wrong")
	}
	err := errs.Err()
	assert.ErrorIs(t, err, errFormat)
	assert.Equal(t, importread.MaxErrors+1, strings.Count(err.Error(), "\n")+1)
	assert.True(t, strings.HasSuffix(err.Error(), "the input is not a well-formed test model: and 5 more"), err.Error())
}

func TestTablePath(t *testing.T) {
	for in, want := range map[string]string{
		"orders": "orders", `"analytics"."orders"`: "analytics.orders", " p.d.t ": "p.d.t",
		"a.b.c.d": "", "orders;drop": "", `"or ders"`: "", "": "",
	} {
		got, ok := importread.TablePath(in)
		assert.Equal(t, want != "", ok, in)
		assert.Equal(t, want, got, in)
	}
}

func TestNamed(t *testing.T) {
	errs := importread.NewErrors(errFormat)
	docs, ok := errs.Parse("m.yml", []byte("metrics: [{name: revenue}, {label: x}, "+planted+"]\n"))
	require.True(t, ok)
	var names []string
	for _, m := range docs[0].List("metrics") {
		if name, ok := m.Named("a metric"); ok {
			names = append(names, name)
		}
	}
	assert.Equal(t, []string{"revenue"}, names)
	assert.Equal(t, "m.yml:1: metrics[1] has no name\nm.yml:1: metrics[2] must be a mapping (a metric)", errs.Err().Error())
}

// Take hands back what was recorded since a mark and forgets it, so one
// construct can be refused and the rest of the input read.
func TestErrorsTake(t *testing.T) {
	errs := importread.NewErrors(errFormat)
	errs.Add("a.yml", 1, "first")
	mark := errs.Mark()
	assert.Empty(t, errs.Take(mark), "nothing since the mark")
	errs.Add("a.yml", 2, "second")
	errs.Add("a.yml", 3, "third")
	taken := errs.Take(mark)
	require.Len(t, taken, 2)
	assert.Equal(t, "a.yml:2: second", taken[0].Error())
	assert.ErrorIs(t, taken[1], errFormat)
	assert.Equal(t, 1, errs.Len(), "what came before the mark stays")
}
