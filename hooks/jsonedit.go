package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// A settings file is edited in place, as text: todosh's entries are
// spliced in and cut out, so every other byte (key order, indentation,
// unknown fields, the person's own formatting) stays as it was, and an
// uninstall after an install gives the file back byte for byte.

// jnode is one JSON value of a document, with where it is in the bytes.
type jnode struct {
	kind       byte // '{', '[', '"', or 'v' for numbers, true, false, null
	start, end int  // the value is doc[start:end]
	members    []jmember
	elems      []*jnode
	str        string // the decoded text of a string
}

// jmember is one member of an object.
type jmember struct {
	key      string
	keyStart int
	val      *jnode
}

// member returns the value of key, or nil.
func (n *jnode) member(key string) *jnode {
	for _, m := range n.members {
		if m.key == key {
			return m.val
		}
	}
	return nil
}

// parseDoc parses a JSON document into nodes. It refuses what
// encoding/json refuses, and a key given twice in one object (which
// agents read differently: the first or the last). With jsonc, comments
// (// and /* */, as the agents that read their settings with
// strip-json-comments allow) are read as white space: the nodes' offsets
// are the document's own, so every comment stays where it is.
func parseDoc(doc []byte, jsonc bool) (*jnode, error) {
	clean := doc
	if jsonc {
		var err error
		if clean, err = blankComments(doc); err != nil {
			return nil, err
		}
	}
	if !json.Valid(clean) {
		var v any
		err := json.Unmarshal(clean, &v)
		if !jsonc && (bytes.Contains(doc, []byte("//")) || bytes.Contains(doc, []byte("/*"))) {
			return nil, fmt.Errorf("not valid JSON (this agent does not read comments in it): %w", err)
		}
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	p := &jparser{b: clean}
	p.ws()
	return p.value()
}

// blankComments is doc with every comment outside strings replaced by
// spaces, its line breaks kept, so that offsets do not move.
func blankComments(doc []byte) ([]byte, error) {
	out := bytes.Clone(doc)
	for i := 0; i < len(out); i++ {
		switch {
		case out[i] == '"':
			for i++; i < len(out) && out[i] != '"'; i++ {
				if out[i] == '\\' {
					i++
				}
			}
		case out[i] == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				if out[i] != '\r' {
					out[i] = ' '
				}
			}
		case out[i] == '/' && i+1 < len(out) && out[i+1] == '*':
			end := bytes.Index(out[i+2:], []byte("*/"))
			if end < 0 {
				return nil, errors.New("not valid JSON: a comment opened with /* is never closed")
			}
			for j := i; j < i+2+end+2; j++ {
				if out[j] != '\n' && out[j] != '\r' {
					out[j] = ' '
				}
			}
			i += 2 + end + 1
		}
	}
	return out, nil
}

type jparser struct {
	b []byte
	i int
}

func (p *jparser) ws() {
	for p.i < len(p.b) && strings.IndexByte(" \t\r\n", p.b[p.i]) >= 0 {
		p.i++
	}
}

// value parses the value at p.i; the document is known to be valid.
func (p *jparser) value() (*jnode, error) {
	if p.i >= len(p.b) {
		return nil, errors.New("unexpected end of JSON")
	}
	n := &jnode{start: p.i}
	switch c := p.b[p.i]; c {
	case '{':
		n.kind = '{'
		p.i++
		p.ws()
		for p.i < len(p.b) && p.b[p.i] != '}' {
			keyStart := p.i
			key, err := p.str()
			if err != nil {
				return nil, err
			}
			if n.member(key) != nil {
				return nil, fmt.Errorf("key %q appears twice in one object", key)
			}
			p.ws()
			p.i++ // ':'
			p.ws()
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			n.members = append(n.members, jmember{key: key, keyStart: keyStart, val: v})
			p.ws()
			if p.i < len(p.b) && p.b[p.i] == ',' {
				p.i++
				p.ws()
			}
		}
		p.i++
	case '[':
		n.kind = '['
		p.i++
		p.ws()
		for p.i < len(p.b) && p.b[p.i] != ']' {
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			n.elems = append(n.elems, v)
			p.ws()
			if p.i < len(p.b) && p.b[p.i] == ',' {
				p.i++
				p.ws()
			}
		}
		p.i++
	case '"':
		n.kind = '"'
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		n.str = s
	default:
		n.kind = 'v'
		for p.i < len(p.b) && strings.IndexByte(",]} \t\r\n", p.b[p.i]) < 0 {
			p.i++
		}
	}
	n.end = p.i
	return n, nil
}

// str reads the string at p.i.
func (p *jparser) str() (string, error) {
	start := p.i
	p.i++
	for p.i < len(p.b) && p.b[p.i] != '"' {
		if p.b[p.i] == '\\' {
			p.i++
		}
		p.i++
	}
	p.i++
	var s string
	if err := json.Unmarshal(p.b[start:min(p.i, len(p.b))], &s); err != nil {
		return "", err
	}
	return s, nil
}

// edit is one splice: doc[start:end] becomes text.
type edit struct {
	start, end int
	text       string
}

func (e edit) apply(doc []byte) []byte {
	out := make([]byte, 0, len(doc)+len(e.text))
	out = append(out, doc[:e.start]...)
	out = append(out, e.text...)
	return append(out, doc[e.end:]...)
}

// lineIndent is the white space that starts the line holding offset i.
func lineIndent(doc []byte, i int) string {
	ls := bytes.LastIndexByte(doc[:i], '\n') + 1
	j := ls
	for j < len(doc) && (doc[j] == ' ' || doc[j] == '\t') {
		j++
	}
	return string(doc[ls:j])
}

// indentUnit guesses one level of the document's indentation from the
// root object's first member, two spaces when there is none to go by.
func indentUnit(doc []byte, root *jnode) string {
	if len(root.members) > 0 {
		k := root.members[0].keyStart
		if ind := lineIndent(doc, k); ind != "" && bytes.LastIndexByte(doc[:k], '\n') > root.start {
			return ind[len(lineIndent(doc, root.start)):]
		}
	}
	return "  "
}

// render writes v as JSON indented for a place whose line starts with
// indent, one level being unit; the first line has no indent.
func render(v any, indent, unit string) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent(indent, unit)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// appendItem returns the edit that adds item (the text of one element, or
// of one `"key": value` member) at the end of container c. After the last
// item it adds a comma and the white space that precedes c's first item,
// so that removeItem cuts exactly what was added; into an empty container
// it adds a line at one level deeper than c's line.
func appendItem(doc []byte, c *jnode, unit string, item func(indent string) (string, error)) (edit, error) {
	var firstStart, lastEnd int
	switch {
	case len(c.members) > 0:
		firstStart, lastEnd = c.members[0].keyStart, c.members[len(c.members)-1].val.end
	case len(c.elems) > 0:
		firstStart, lastEnd = c.elems[0].start, c.elems[len(c.elems)-1].end
	default:
		outer := lineIndent(doc, c.start)
		text, err := item(outer + unit)
		if err != nil {
			return edit{}, err
		}
		nl := lineBreak(doc)
		if !isSpace(doc[c.start+1 : c.end-1]) {
			// A comment inside stays, after the item.
			return edit{start: c.start + 1, end: c.start + 1, text: nl + outer + unit + text + nl}, nil
		}
		return edit{start: c.start + 1, end: c.end - 1, text: nl + outer + unit + text + nl + outer}, nil
	}
	// What separates c's opening from its first item separates each item
	// from the next, unless it holds a comment: then a line break and the
	// first item's indentation.
	sep := string(doc[c.start+1 : firstStart])
	if !isSpace([]byte(sep)) {
		sep = lineBreak(doc) + lineIndent(doc, firstStart)
	}
	text, err := item(lineIndent(doc, firstStart))
	if err != nil {
		return edit{}, err
	}
	return edit{start: lastEnd, end: lastEnd, text: "," + sep + text}, nil
}

// isSpace reports whether b is only JSON's white space.
func isSpace(b []byte) bool { return len(bytes.Trim(b, " \t\r\n")) == 0 }

// lineBreak is the document's line break: "\r\n" in a file that uses it,
// "\n" otherwise.
func lineBreak(doc []byte) string {
	if bytes.Contains(doc, []byte("\r\n")) {
		return "\r\n"
	}
	return "\n"
}

// withLineBreaks is text, whose lines end in "\n", with the document's
// line breaks.
func withLineBreaks(doc []byte, text string) string {
	if lineBreak(doc) == "\n" {
		return text
	}
	return strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\n", "\r\n")
}

// itemSpans are the [start, end) spans of a container's items.
func itemSpans(c *jnode) [][2]int {
	var spans [][2]int
	for _, m := range c.members {
		spans = append(spans, [2]int{m.keyStart, m.val.end})
	}
	for _, e := range c.elems {
		spans = append(spans, [2]int{e.start, e.end})
	}
	return spans
}

// removeItem returns the edit that takes item i out of container c of
// doc: with the comma and white space before it, or after it when it is
// the first; the only item goes with all the white space inside c, or,
// where c also holds a comment, with the white space around it.
func removeItem(doc []byte, c *jnode, i int) edit {
	spans := itemSpans(c)
	switch {
	case len(spans) == 1:
		start, end := spans[0][0], spans[0][1]
		if isSpace(doc[c.start+1:start]) && isSpace(doc[end:c.end-1]) {
			return edit{start: c.start + 1, end: c.end - 1}
		}
		for start > c.start+1 && isSpace(doc[start-1:start]) {
			start--
		}
		for end < c.end-1 && (doc[end] == ' ' || doc[end] == '\t') {
			end++
		}
		if rest := doc[end : c.end-1]; bytes.HasPrefix(rest, []byte("\r\n")) {
			end += 2
		} else if bytes.HasPrefix(rest, []byte("\n")) {
			end++
		}
		return edit{start: start, end: end}
	case i > 0:
		return edit{start: spans[i-1][1], end: spans[i][1]}
	default:
		return edit{start: spans[0][0], end: spans[1][0]}
	}
}
