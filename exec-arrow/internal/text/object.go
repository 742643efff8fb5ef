package text

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

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
// against encoding/json. An Object is one goroutine's: it keeps how the
// last line spelt its keys.
type Object struct {
	names []string
	index map[string]int // names' positions, when there are many
	same  [][2]int       // {i, j}: names[i] repeats names[j], j < i
	// keys are the members of the last line read, in its order, each as
	// its key's bytes from the opening quote to the colon with nothing
	// between them (nil when there was white space) and the key's name
	// index (-1: none): lines from one writer spell their keys alike, and
	// a member spelt as the last line's is matched by one comparison.
	keys []memberKey
}

type memberKey struct {
	lit []byte
	k   int
	// w0 and w1 are lit's first and last eight bytes, when it has 8 to 16
	// (a key of 5 to 13 bytes): two loads compare it, where a call
	// compared its bytes.
	w0, w1 uint64
}

// at reports whether line holds k's spelling at i.
func (k *memberKey) at(line []byte, i int) bool {
	n := len(k.lit)
	switch {
	case n == 0 || len(line)-i < n:
		return false
	case n >= 8 && n <= 16:
		return binary.LittleEndian.Uint64(line[i:]) == k.w0 && binary.LittleEndian.Uint64(line[i+n-8:]) == k.w1
	}
	return string(line[i:i+n]) == string(k.lit)
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
	for m := 0; ; m++ {
		var k, vs int
		if m < len(o.keys) && o.keys[m].at(line, i) {
			k, vs = o.keys[m].k, skipSpace(line, i+len(o.keys[m].lit))
		} else if k, vs = o.key(line, i, m); vs < 0 {
			return false
		}
		ve, plain := value(line, vs, 0)
		if ve < 0 {
			return false
		}
		if k >= 0 {
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

// key reads the key of member m at line[i] and the colon after it, and
// returns its name index (-1: none) and where the value starts (-1: a key
// Read does not read itself); it notes how the key is spelt for the next
// line.
func (o *Object) key(line []byte, i, m int) (k, vs int) {
	if i >= len(line) || line[i] != '"' {
		return -1, -1
	}
	ks := i + 1
	ke, wide := ks, false
	for {
		ke = nextSpecial(line, ke)
		if ke >= len(line) {
			return -1, -1
		}
		c := line[ke]
		if c == '"' {
			break
		}
		if c == '\\' || c < 0x20 {
			return -1, -1
		}
		wide = true
		ke++
	}
	if wide && !utf8.Valid(line[ks:ke]) {
		return -1, -1
	}
	i = skipSpace(line, ke+1)
	if i >= len(line) || line[i] != ':' {
		return -1, -1
	}
	k = o.lookup(line[ks:ke])
	for len(o.keys) <= m {
		o.keys = append(o.keys, memberKey{})
	}
	mk := &o.keys[m]
	lit := mk.lit[:0]
	mk.k, mk.lit = k, nil
	if i == ke+1 {
		mk.lit = append(lit, line[ks-1:i+1]...)
		if n := len(mk.lit); n >= 8 && n <= 16 {
			mk.w0, mk.w1 = binary.LittleEndian.Uint64(mk.lit), binary.LittleEndian.Uint64(mk.lit[n-8:])
		}
	}
	return k, skipSpace(line, i+1)
}

// skipSpace returns the first index from i of a byte that is not JSON's
// white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && b[i] <= ' ' && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
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
	for {
		if i = nextSpecial(b, i); i >= len(b) {
			return -1, false
		}
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
		default: // past ASCII
			plain = false
			i++
		}
	}
}

// nextSpecial returns the index from i of the first byte of b that is a
// quote, a backslash, a control byte or past ASCII (len(b): none is),
// looking at eight bytes at a time.
func nextSpecial(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		if m := special(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			return i
		}
	}
	return i
}

// special sets the high bit of each byte of x that nextSpecial stops at,
// and no other bit (no carry crosses a byte).
func special(x uint64) uint64 {
	const (
		low7  = 0x7f7f7f7f7f7f7f7f
		high  = 0x8080808080808080
		quote = 0x2222222222222222
		slash = 0x5c5c5c5c5c5c5c5c
		upTo  = 0x6060606060606060 // a 7-bit byte plus 0x60 reaches 0x80 from 0x20 on
	)
	return zeroBytes(x^quote) | zeroBytes(x^slash) | (x|^(x&low7+upTo))&high
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

// digits returns the first index from i of a byte of b that is not a
// decimal digit (len(b): none is), looking at eight bytes at a time.
func digits(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		if m := notDigits(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// notDigits sets the high bit of each byte of x that is not '0' to '9',
// and no other bit: a byte t = x^'0' is a digit when t < 10, and t&0x7f +
// 0x76 reaches 0x80 from 10 on without a carry out of its byte.
func notDigits(x uint64) uint64 {
	t := x ^ 0x3030303030303030
	return (t&0x7f7f7f7f7f7f7f7f + 0x7676767676767676 | t) & 0x8080808080808080
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
