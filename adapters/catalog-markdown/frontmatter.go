package mdcatalog

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// splitFrontMatter cuts a document into its YAML front matter and its
// Markdown body. The first line must be "---" and the front matter ends at
// the next "---" line; trailing spaces and a CR on either marker line are
// ignored, and a UTF-8 byte order mark before the first is skipped. It
// returns the YAML text, the file line its first line is on, and the body.
func splitFrontMatter(data []byte) (front []byte, firstLine int, body string, reason string) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	line, next := readLine(data, 0)
	if !isMarker(line) {
		return nil, 0, "", "the document does not open with a --- line; every document starts with YAML front matter between two --- lines"
	}
	start := next
	for pos := start; pos < len(data); {
		line, next := readLine(data, pos)
		if isMarker(line) {
			return data[start:pos], 2, string(data[next:]), ""
		}
		pos = next
	}
	return nil, 0, "", "the front matter opened on this line is not closed by a --- line"
}

// readLine returns the line starting at pos (without its LF) and the
// position after it.
func readLine(data []byte, pos int) ([]byte, int) {
	if i := bytes.IndexByte(data[pos:], '\n'); i >= 0 {
		return data[pos : pos+i], pos + i + 1
	}
	return data[pos:], len(data)
}

func isMarker(line []byte) bool {
	return string(bytes.TrimRight(line, " \t\r")) == "---"
}

// parseYAML parses the front matter into its root node, which is nil when
// the front matter is empty. firstLine is the file line of the YAML's first
// line, so errors carry file positions.
func parseYAML(file string, front []byte, firstLine int) (root *yaml.Node, e *Error) {
	defer func() {
		// yaml.v3 has panicked on hostile input before; a catalogue
		// reader must fail with an error instead.
		if recover() != nil {
			root, e = nil, &Error{File: file, Line: firstLine, Column: 1, Err: ErrYAML,
				Reason: "the front matter could not be parsed as YAML"}
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(front))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, yamlSyntax(file, err, front, firstLine)
	}
	var more yaml.Node
	switch err := dec.Decode(&more); {
	case err == nil:
		return nil, &Error{File: file, Line: firstLine + more.Line - 1, Column: 1, Err: ErrYAML,
			Reason: "the front matter holds more than one YAML document"}
	case !errors.Is(err, io.EOF):
		return nil, yamlSyntax(file, err, front, firstLine)
	}
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		return doc.Content[0], nil
	}
	return nil, nil
}

var yamlLine = regexp.MustCompile(`^yaml: line ([0-9]+): `)

// yamlSyntax turns a yaml.v3 syntax error into an *Error. The library's
// message can quote the document (an undefined anchor's name, for one), so
// it is never passed on: it only selects one of our own hints.
func yamlSyntax(file string, err error, front []byte, firstLine int) *Error {
	msg := err.Error()
	line := 1
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		if n, convErr := strconv.Atoi(m[1]); convErr == nil && n > 0 {
			line = n
		}
	}
	hint := ""
	for _, h := range yamlHints {
		if strings.Contains(msg, h.match) {
			hint = h.hint
			break
		}
	}
	if tab := tabIndentLine(front); tab > 0 && (tab == line || strings.Contains(msg, "tab character")) {
		// The parser may call a tab "a character that cannot start any
		// token"; the tab is the cause wherever it stumbles on one.
		line, hint = tab, "tabs cannot indent YAML; indent with spaces"
	}
	if bad := badCharLine(front); bad > 0 && (strings.Contains(msg, "control characters") || strings.Contains(msg, "UTF-8") || strings.Contains(msg, "Unicode")) {
		line = bad
	}
	reason := "the front matter is not valid YAML (a syntax error at or near this line)"
	if hint != "" {
		reason = fmt.Sprintf("the front matter is not valid YAML at or near this line: %s", hint)
	}
	return &Error{File: file, Line: firstLine + line - 1, Err: ErrYAML, Reason: reason}
}

var yamlHints = []struct{ match, hint string }{
	{"control characters", "it holds a control character or a byte that is not UTF-8"},
	{"UTF-8", "it holds a byte sequence that is not UTF-8"},
	{"tab character", "tabs cannot indent YAML; indent with spaces"},
	{"mapping values are not allowed", "a plain value holds a colon and a space, or a line is indented too far; quote the value or fix the indentation"},
	{"did not find expected key", "a line's indentation does not match its mapping or list"},
	{"unknown anchor", "an alias names an anchor that is not defined (aliases are not supported)"},
	{"unknown escape character", "a double-quoted string holds an unknown escape"},
	{"unexpected end of stream", "a quoted string or a flow collection is not closed"},
	{"did not find expected ',' or", "a flow collection ([...] or {...}) is not closed"},
	{"cannot start any token", "a plain value starts with a reserved character such as @ or `; quote it"},
	{"found undefined tag handle", "a tag is not defined"},
	{"could not find expected ':'", "a key is not followed by a colon"},
}

// badCharLine returns the 1-based line of the first character YAML does not
// allow (a control character other than tab, LF and CR, or invalid UTF-8),
// or 0.
func badCharLine(text []byte) int {
	line := 1
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRune(text[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return line
		case r == '\n':
			line++
		case r == '\t' || r == '\r':
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f && r != 0x85) || r == 0xfffe || r == 0xffff:
			return line
		}
		i += size
	}
	return 0
}

// tabIndentLine returns the 1-based line of the first line whose
// indentation holds a tab, or 0.
func tabIndentLine(text []byte) int {
	for i, l := range bytes.Split(text, []byte("\n")) {
		indent := l[:len(l)-len(bytes.TrimLeft(l, " \t"))]
		if bytes.IndexByte(indent, '\t') >= 0 && len(bytes.TrimSpace(l)) > 0 {
			return i + 1
		}
	}
	return 0
}
