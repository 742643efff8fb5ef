package semantic

import "strings"

// frag is a piece of SQL under construction: text and values in textual
// order. Values get their placeholders only when the whole statement is
// finished, numbered in the order they appear, one parameter per
// occurrence: Oracle binds positional parameters by occurrence, not by
// number, so no placeholder is ever written twice.
type frag []piece

type piece struct {
	text  string
	isVal bool
	kind  ParamKind
}

// cat concatenates strings (SQL text this package writes, never a value)
// and frags; it takes nothing else.
func cat(parts ...any) frag {
	var out frag
	for _, p := range parts {
		switch x := p.(type) {
		case string:
			out = append(out, piece{text: x})
		case frag:
			out = append(out, x...)
		}
	}
	return out
}

// value is one bound value.
func value(k ParamKind, v string) frag { return frag{{text: v, isVal: true, kind: k}} }

// joinFrags joins fs with sep.
func joinFrags(sep string, fs []frag) frag {
	var out frag
	for i, f := range fs {
		if i > 0 {
			out = append(out, piece{text: sep})
		}
		out = append(out, f...)
	}
	return out
}

// finish writes the SQL text with placeholders and returns the parameters.
func (f frag) finish(d Dialect) Statement {
	var b strings.Builder
	var params []Param
	for _, p := range f {
		if !p.isVal {
			b.WriteString(p.text)
			continue
		}
		ph := d.placeholder(len(params)+1, p.kind)
		params = append(params, Param{Name: ph, Kind: p.kind, Value: p.text})
		b.WriteString(ph)
	}
	return Statement{SQL: b.String(), Params: params}
}

// finishBound writes the SQL text with a driver-bound placeholder per
// value: ? for text, toDate(?) for a date (RenderClickHouseLegacy).
func (f frag) finishBound() Statement {
	var b strings.Builder
	var params []Param
	for _, p := range f {
		if !p.isVal {
			b.WriteString(p.text)
			continue
		}
		params = append(params, Param{Name: "?", Kind: p.kind, Value: p.text})
		if p.kind == ParamDate {
			b.WriteString("toDate(?)")
		} else {
			b.WriteString("?")
		}
	}
	return Statement{SQL: b.String(), Params: params}
}
