package text

import "unicode/utf8"

// Object reads an NDJSON line's members as encoding/json reads the line
// into a map[string]json.RawMessage, for the keys it was made for. It
// scans the line once and allocates nothing: decoding into a map costs
// a map entry and a copy per member, about 4 µs for a line of eleven,
// where the scan costs a tenth of that.
//
// Contract: when Read reports true, the line is a JSON object
// encoding/json decodes without an error, and every value set is the raw
// value its map would hold under that key (the last member of the name
// wins). A line Read does not read itself — not an object, a syntax
// error, a key with an escape or invalid UTF-8, nesting past maxDepth —
// is reported false, never guessed at; the caller then decodes it with
// encoding/json, whose error is the answer. FuzzObject checks this
// against encoding/json.
type Object struct {
	names []string
	index map[string]int // names' positions, when there are many
	same  [][2]int       // {i, j}: names[i] repeats names[j], j < i
}

// maxDepth is the deepest nesting of arrays and objects inside a member's
// value Read skips itself; deeper values are left to encoding/json.
const maxDepth = 64

// manyNames is the count of names from which a map finds a key's name
// faster than comparing it with each.
const manyNames = 8

// NewObject returns a reader of the members named names.
func NewObject(names []string) *Object {
	o := &Object{names: names}
	for i, n := range names {
		for j := range i {
			if names[j] == n {
				o.same = append(o.same, [2]int{i, j})
				break
			}
		}
	}
	if len(names) >= manyNames {
		o.index = make(map[string]int, len(names))
		for i, n := range names {
			if _, dup := o.index[n]; !dup {
				o.index[n] = i
			}
		}
	}
	return o
}

func (o *Object) lookup(key []byte) int {
	if o.index != nil {
		if i, ok := o.index[string(key)]; ok {
			return i
		}
		return -1
	}
	for i, n := range o.names {
		if n == string(key) {
			return i
		}
	}
	return -1
}

// Read scans line, one NDJSON line without the white space around it,
// and sets vals[i] (len(vals) = len(names)) to the raw value of the last
// member named names[i], sharing line's bytes, or to nil when no member
// is; a value present is never empty ("null" for a JSON null). simple[i]
// (when simple is not nil) reports whether vals[i] is a string with no
// escape and no byte past ASCII, whose text is then the bytes inside its
// quotes. ok is false for a line Read does not read itself (see Object).
func (o *Object) Read(line []byte, vals [][]byte, simple []bool) (ok bool) {
	clear(vals)
	clear(simple)
	if !o.read(line, vals, simple) {
		return false
	}
	for _, p := range o.same {
		vals[p[0]] = vals[p[1]]
		if simple != nil {
			simple[p[0]] = simple[p[1]]
		}
	}
	return true
}

func (o *Object) read(line []byte, vals [][]byte, simple []bool) bool {
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return false
	}
	i = skipSpace(line, i+1)
	if i < len(line) && line[i] == '}' {
		return skipSpace(line, i+1) == len(line)
	}
	for {
		if i >= len(line) || line[i] != '"' {
			return false
		}
		ks := i + 1
		ke, wide := ks, false
		for ; ke < len(line); ke++ {
			c := line[ke]
			if c == '"' {
				break
			}
			if c == '\\' || c < 0x20 {
				return false
			}
			if c >= utf8.RuneSelf {
				wide = true
			}
		}
		if ke >= len(line) || wide && !utf8.Valid(line[ks:ke]) {
			return false
		}
		i = skipSpace(line, ke+1)
		if i >= len(line) || line[i] != ':' {
			return false
		}
		vs := skipSpace(line, i+1)
		ve, plain := value(line, vs, 0)
		if ve < 0 {
			return false
		}
		if k := o.lookup(line[ks:ke]); k >= 0 {
			vals[k] = line[vs:ve:ve]
			if simple != nil {
				simple[k] = plain
			}
		}
		i = skipSpace(line, ve)
		if i >= len(line) {
			return false
		}
		switch line[i] {
		case ',':
			i = skipSpace(line, i+1)
		case '}':
			return skipSpace(line, i+1) == len(line)
		default:
			return false
		}
	}
}

// skipSpace returns the first index from i of a byte that is not JSON's
// white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// value returns where the JSON value starting at b[i] ends, or -1 when
// none does (or it nests deeper than maxDepth); plain reports a string
// with no escape and no byte past ASCII.
func value(b []byte, i, depth int) (end int, plain bool) {
	if i >= len(b) {
		return -1, false
	}
	switch c := b[i]; {
	case c == '"':
		return str(b, i+1)
	case c == '-' || c >= '0' && c <= '9':
		return number(b, i), false
	case c == 't':
		return literal(b, i, "true"), false
	case c == 'f':
		return literal(b, i, "false"), false
	case c == 'n':
		return literal(b, i, "null"), false
	case c == '{' || c == '[':
		return composite(b, i, depth+1), false
	}
	return -1, false
}

// str returns where the string whose text starts at b[i] ends (past its
// closing quote), or -1.
func str(b []byte, i int) (end int, plain bool) {
	plain = true
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			return i + 1, plain
		case c < 0x20:
			return -1, false
		case c == '\\':
			plain = false
			if i+1 >= len(b) {
				return -1, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) {
					return -1, false
				}
				for _, h := range b[i+2 : i+6] {
					if !isHex(h) {
						return -1, false
					}
				}
				i += 6
			default:
				return -1, false
			}
		default:
			if c >= utf8.RuneSelf {
				plain = false
			}
			i++
		}
	}
	return -1, false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// number returns where the JSON number starting at b[i] ends, or -1:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func number(b []byte, i int) int {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i+1)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

func literal(b []byte, i int, lit string) int {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// composite returns where the array or object starting at b[i] ends, or
// -1 (past maxDepth too).
func composite(b []byte, i, depth int) int {
	if depth > maxDepth {
		return -1
	}
	closer := byte(']')
	object := b[i] == '{'
	if object {
		closer = '}'
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == closer {
		return i + 1
	}
	for {
		if object {
			if i >= len(b) || b[i] != '"' {
				return -1
			}
			e, _ := str(b, i+1)
			if e < 0 {
				return -1
			}
			i = skipSpace(b, e)
			if i >= len(b) || b[i] != ':' {
				return -1
			}
			i = skipSpace(b, i+1)
		}
		e, _ := value(b, i, depth)
		if e < 0 {
			return -1
		}
		i = skipSpace(b, e)
		if i >= len(b) {
			return -1
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case closer:
			return i + 1
		default:
			return -1
		}
	}
}
