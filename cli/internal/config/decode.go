package config

import (
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"sutura.dev/domain"
)

// origin is where a key got its current value.
type origin struct {
	layer        string
	line, column int
}

// defaultsLayer names the built-in defaults in messages.
const defaultsLayer = "defaults"

// maxNodes bounds the work of applying one layer, so that aliases cannot
// make a small file expensive ("billion laughs"). A real configuration
// has a few thousand values at most.
const maxNodes = 200_000

// applier applies one layer's YAML tree onto the typed configuration,
// guided by the struct's yaml tags: unknown keys, duplicate keys and
// wrong types are refused, values are parsed without ever being quoted
// in a message, and the origin of every key set is recorded.
type applier struct {
	layer     string
	positions bool // line and column are meaningful (a file)
	origins   map[string]origin
	errs      *errList
	budget    int
	exhausted bool
}

// fail records a refusal of key located at n.
func (a *applier) fail(n *yaml.Node, key, reason string) {
	e := &Error{Layer: a.layer, Key: key, Reason: reason}
	if a.positions && n != nil {
		e.Line, e.Column = n.Line, n.Column
	}
	a.errs.add(e)
}

// mark records that key was set by this layer at n.
func (a *applier) mark(n *yaml.Node, key string) {
	o := origin{layer: a.layer}
	if a.positions && n != nil {
		o.line, o.column = n.Line, n.Column
	}
	a.origins[key] = o
}

// resolveAlias follows alias nodes to the node they name.
func resolveAlias(n *yaml.Node) *yaml.Node {
	for hops := 0; n != nil && n.Kind == yaml.AliasNode; hops++ {
		if hops > 100 {
			return nil
		}
		n = n.Alias
	}
	return n
}

// isNull reports whether n carries no value: absent, empty or null.
func isNull(n *yaml.Node) bool {
	return n == nil || n.Kind == 0 || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null")
}

// childKey joins a parent key and a mapping key with a dot.
func childKey(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

// indexKey names the i-th item of the list at parent.
func indexKey(parent string, i int) string { return parent + "[" + strconv.Itoa(i) + "]" }

// yamlName returns a field's yaml key, or "" when the field is not one.
func yamlName(f reflect.StructField) string {
	tag, ok := f.Tag.Lookup("yaml")
	if !ok || !f.IsExported() {
		return ""
	}
	name, _, _ := strings.Cut(tag, ",")
	if name == "-" {
		return ""
	}
	return name
}

// fieldsOf maps the yaml keys of struct type t to field indexes, in
// declaration order.
func fieldsOf(t reflect.Type) (map[string]int, []string) {
	idx := map[string]int{}
	var names []string
	for i := range t.NumField() {
		if name := yamlName(t.Field(i)); name != "" {
			idx[name] = i
			names = append(names, name)
		}
	}
	return idx, names
}

// apply sets v from n; key is v's dotted key ("" for the root) and at is
// the node that names it (the mapping key), where a mapping or list is
// recorded as set; scalars are recorded where their value is.
func (a *applier) apply(v reflect.Value, n, at *yaml.Node, key string) {
	if a.exhausted {
		return
	}
	a.budget++
	if a.budget > maxNodes {
		a.exhausted = true
		a.fail(n, key, "the layer is too large or uses too many aliases")
		return
	}
	if n != nil && n.Kind == yaml.AliasNode {
		if n = resolveAlias(n); n == nil {
			a.fail(nil, key, "uses an alias that cannot be resolved")
			return
		}
	}
	if isNull(n) {
		return // a null changes nothing
	}
	if at == nil {
		at = n
	}
	switch v.Kind() {
	case reflect.Struct:
		a.applyStruct(v, n, at, key)
	case reflect.Map:
		a.applyMap(v, n, at, key)
	case reflect.Slice:
		a.applySlice(v, n, at, key)
	case reflect.String:
		if n.Kind != yaml.ScalarNode {
			a.fail(n, key, "expected a string")
			return
		}
		v.SetString(n.Value)
		a.mark(n, key)
	case reflect.Int, reflect.Int64:
		var x int64
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || n.Decode(&x) != nil {
			a.fail(n, key, "expected an integer")
			return
		}
		if v.OverflowInt(x) {
			a.fail(n, key, "expected a smaller integer")
			return
		}
		v.SetInt(x)
		a.mark(n, key)
	case reflect.Bool:
		var b bool
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" || n.Decode(&b) != nil {
			a.fail(n, key, "expected true or false")
			return
		}
		v.SetBool(b)
		a.mark(n, key)
	default:
		a.fail(n, key, "cannot be set") // unreachable with the types of this package
	}
}

// mappingKey reads the key node of a mapping pair; ok is false (and the
// refusal recorded) when it is not a plain name.
func (a *applier) mappingKey(k *yaml.Node, parent string) (string, bool) {
	k = resolveAlias(k)
	switch {
	case k == nil || k.Kind != yaml.ScalarNode || isNull(k):
		a.fail(k, parent, "has a key that is not a string")
		return "", false
	case k.ShortTag() == "!!merge":
		a.fail(k, childKey(parent, k.Value), "merge keys are not supported; repeat the keys or use an alias for the whole value")
		return "", false
	}
	return k.Value, true
}

// pairs walks a mapping node, refusing non-string and duplicate keys.
func (a *applier) pairs(n *yaml.Node, key string, each func(name string, k, val *yaml.Node)) {
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		name, ok := a.mappingKey(k, key)
		if !ok {
			continue
		}
		if line, dup := seen[name]; dup {
			reason := "is a duplicate key"
			if a.positions {
				reason += " (first at line " + strconv.Itoa(line) + ")"
			}
			a.fail(k, childKey(key, name), reason)
			continue
		}
		seen[name] = k.Line
		each(name, k, val)
	}
}

func (a *applier) applyStruct(v reflect.Value, n, at *yaml.Node, key string) {
	if n.Kind != yaml.MappingNode {
		a.fail(n, key, "expected a mapping")
		return
	}
	a.mark(at, key)
	fields, names := fieldsOf(v.Type())
	a.pairs(n, key, func(name string, k, val *yaml.Node) {
		i, known := fields[name]
		if !known {
			reason := "is not a known key"
			if near := nearest(name, names); near != "" {
				reason += " (did you mean " + near + "?)"
			}
			a.fail(k, childKey(key, name), reason)
			return
		}
		a.apply(v.Field(i), val, k, childKey(key, name))
	})
}

func (a *applier) applyMap(v reflect.Value, n, at *yaml.Node, key string) {
	if n.Kind != yaml.MappingNode {
		a.fail(n, key, "expected a mapping")
		return
	}
	if v.IsNil() {
		v.Set(reflect.MakeMapWithSize(v.Type(), len(n.Content)/2))
	}
	a.mark(at, key)
	a.pairs(n, key, func(name string, k, val *yaml.Node) {
		if isNull(resolveAlias(val)) {
			return
		}
		mk := reflect.ValueOf(name).Convert(v.Type().Key())
		elem := reflect.New(v.Type().Elem()).Elem()
		if old := v.MapIndex(mk); old.IsValid() {
			elem.Set(old)
		}
		a.apply(elem, val, k, childKey(key, name))
		v.SetMapIndex(mk, elem)
	})
}

func (a *applier) applySlice(v reflect.Value, n, at *yaml.Node, key string) {
	if n.Kind != yaml.SequenceNode {
		a.fail(n, key, "expected a list")
		return
	}
	// A list replaces the one before it whole, so the origins of the old
	// items go with them (there are none unless an earlier layer set it).
	if _, before := a.origins[key]; before {
		for k := range a.origins {
			if strings.HasPrefix(k, key+"[") {
				delete(a.origins, k)
			}
		}
	}
	s := reflect.MakeSlice(v.Type(), 0, len(n.Content))
	for i, item := range n.Content {
		e := reflect.New(v.Type().Elem()).Elem()
		ik := indexKey(key, i)
		if isNull(resolveAlias(item)) {
			a.fail(item, ik, "must not be null")
			continue
		}
		a.apply(e, item, nil, ik)
		s = reflect.Append(s, e)
	}
	v.Set(s)
	a.mark(at, key)
}

// nearest returns the candidate closest to name when it is close enough
// to be a likely typo or a shortened key (request_timeout for
// request_timeout_seconds), or "".
func nearest(name string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		if d := editDistance(name, c, bestD); d < bestD {
			best, bestD = c, d
		}
	}
	if best != "" || name == "" {
		return best
	}
	for _, c := range candidates {
		if strings.HasPrefix(c, name+"_") {
			return c
		}
	}
	return ""
}

// editDistance is the Levenshtein distance of a and b (domain.EditDistance),
// or limit when it is at least limit or either is longer than a key can be.
func editDistance(a, b string, limit int) int {
	if len(a) > 64 || len(b) > 64 {
		return limit
	}
	return min(domain.EditDistance(a, b), limit)
}
