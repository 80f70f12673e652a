package clis

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// A tiny JSON scanner. The stream parsers look at a handful of fields of
// each line; decoding whole lines with encoding/json costs more than the
// rest of todosh together (see BenchmarkParse*). The scanner walks a line
// once, skips values it is not asked about (strings with bytes.IndexByte),
// and checks the structure as it goes, so a truncated or garbled line is
// still reported as malformed. Payloads that matter (todo lists) are then
// decoded with encoding/json from the sub-slice the scanner found.

// jsonMaxDepth bounds nesting so hostile input cannot exhaust memory.
const jsonMaxDepth = 10000

var errJSONSyntax = errors.New("invalid JSON")

// errStopScan, returned by a member callback, ends the walk early: the
// caller has what it needs and the rest of the line is not looked at.
var errStopScan = errors.New("stop scan")

func jsonSyntaxErr(data []byte, i int, what string) error {
	return fmt.Errorf("%w: %s at offset %d of %d", errJSONSyntax, what, i, len(data))
}

// jsonWS returns the index of the first non-whitespace byte at or after i.
func jsonWS(data []byte, i int) int {
	for i < len(data) && data[i] <= ' ' {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// jsonSkipString returns the index just after the string that starts with the
// quote at data[i]. Most strings in these streams are short keys and
// values: they are scanned eight bytes at a time for a quote or a
// backslash; past jsonShort bytes, bytes.IndexByte (vectorised) takes over.
func jsonSkipString(data []byte, i int) (int, error) {
	j := i + 1
	for j+8 <= len(data) && j-i < jsonShort {
		w := binary.LittleEndian.Uint64(data[j:])
		m := swarHas(w, '"') | swarHas(w, '\\')
		if m == 0 {
			j += 8
			continue
		}
		j += bits.TrailingZeros64(m) / 8
		if data[j] == '"' {
			return j + 1, nil
		}
		j += 2 // a backslash and the byte it escapes
	}
	for j < len(data) && j-i < jsonShort {
		switch data[j] {
		case '"':
			return j + 1, nil
		case '\\':
			j++
		}
		j++
	}
	for {
		if j > len(data) {
			j = len(data)
		}
		k := bytes.IndexByte(data[j:], '"')
		if k < 0 {
			return 0, jsonSyntaxErr(data, i, "unterminated string")
		}
		j += k
		// The quote ends the string unless an odd run of backslashes escapes it.
		n := 0
		for b := j - 1; b > i && data[b] == '\\'; b-- {
			n++
		}
		if n%2 == 0 {
			return j + 1, nil
		}
		j++
	}
}

// jsonFixed reads a line written in a fixed shape: it expects lit at
// data[i], ending with the opening quote of a string, and returns where
// that string starts (the quote) and ends. ok is false for anything else.
func jsonFixed(data []byte, i int, lit string) (start, end int, ok bool) {
	if !bytes.HasPrefix(data[i:], []byte(lit)) {
		return 0, 0, false
	}
	start = i + len(lit) - 1
	end, err := jsonSkipString(data, start)
	return start, end, err == nil
}

// scannedText is a raw JSON string value with what jsonText learnt of it on
// the way, which spares decoding a second look at its bytes.
type scannedText struct {
	raw   []byte
	plain bool // no escapes
	ascii bool // plain and all ASCII: no UTF-8 check either
}

// jsonText reads the string that starts with the quote at data[i], a
// message text as a rule, and returns its end. Texts rarely hold escapes:
// one pass looks at eight bytes at a time for the closing quote, a
// backslash and a high bit at once, and only a string with a backslash is
// read again by jsonSkipString.
func jsonText(data []byte, i int) (int, scannedText, error) {
	const hi = 0x8080808080808080
	var high uint64
	j := i + 1
	for ; j+8 <= len(data); j += 8 {
		w := binary.LittleEndian.Uint64(data[j:])
		if m := swarHas(w, '"') | swarHas(w, '\\'); m != 0 {
			n := bits.TrailingZeros64(m) / 8
			if data[j+n] != '"' {
				return jsonEscaped(data, i)
			}
			high |= w & hi & (1<<(8*n) - 1)
			return j + n + 1, scannedText{raw: data[i : j+n+1], plain: true, ascii: high == 0}, nil
		}
		high |= w & hi
	}
	for ; j < len(data); j++ {
		switch c := data[j]; {
		case c == '"':
			return j + 1, scannedText{raw: data[i : j+1], plain: true, ascii: high == 0}, nil
		case c == '\\':
			return jsonEscaped(data, i)
		case c >= utf8.RuneSelf:
			high = 1
		}
	}
	return 0, scannedText{}, jsonSyntaxErr(data, i, "unterminated string")
}

func jsonEscaped(data []byte, i int) (int, scannedText, error) {
	end, err := jsonSkipString(data, i)
	if err != nil {
		return 0, scannedText{}, err
	}
	return end, scannedText{raw: data[i:end]}, nil
}

// jsonShort is the length up to which strings are scanned word by word.
const jsonShort = 64

// swarHas sets the high bit of each byte of w that equals c; the lowest
// set bit is exact (higher ones may be false after a match, which is
// never looked at).
func swarHas(w uint64, c byte) uint64 {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	x := w ^ (lo * uint64(c))
	return (x - lo) & ^x & hi
}

// jsonValue returns the index just after the JSON value that starts at
// data[i] (no leading whitespace). Containers are walked without recursion.
func jsonValue(data []byte, i int) (int, error) {
	if i >= len(data) {
		return 0, jsonSyntaxErr(data, i, "missing value")
	}
	switch c := data[i]; {
	case c == '"':
		return jsonSkipString(data, i)
	case c == '{' || c == '[':
		return jsonContainer(data, i)
	case c == 't':
		return jsonLiteral(data, i, "true")
	case c == 'f':
		return jsonLiteral(data, i, "false")
	case c == 'n':
		return jsonLiteral(data, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		j := i + 1
		for j < len(data) {
			d := data[j]
			if (d >= '0' && d <= '9') || d == '.' || d == 'e' || d == 'E' || d == '+' || d == '-' {
				j++
				continue
			}
			break
		}
		return j, nil
	default:
		return 0, jsonSyntaxErr(data, i, fmt.Sprintf("unexpected %q", c))
	}
}

func jsonLiteral(data []byte, i int, lit string) (int, error) {
	if !bytes.HasPrefix(data[i:], []byte(lit)) {
		return 0, jsonSyntaxErr(data, i, "bad literal")
	}
	return i + len(lit), nil
}

// jsonContainer skips the object or array at data[i], keeping a stack of
// open brackets instead of recursing.
func jsonContainer(data []byte, i int) (int, error) {
	var stackBuf [64]byte
	stack := append(stackBuf[:0], data[i])
	i++
	// member: a value (or key) may come next; closing: a bracket may.
	member, closing := true, true
	for {
		i = jsonWS(data, i)
		if i >= len(data) {
			return 0, jsonSyntaxErr(data, i, "unterminated container")
		}
		top, c := stack[len(stack)-1], data[i]
		if closing && ((c == '}' && top == '{') || (c == ']' && top == '[')) {
			stack = stack[:len(stack)-1]
			i++
			if len(stack) == 0 {
				return i, nil
			}
			member, closing = false, true
			continue
		}
		if !member {
			if c != ',' {
				return 0, jsonSyntaxErr(data, i, "expected , or closing bracket")
			}
			i++
			member, closing = true, false
			continue
		}
		if top == '{' {
			if c != '"' {
				return 0, jsonSyntaxErr(data, i, "expected object key")
			}
			var err error
			if i, err = jsonSkipString(data, i); err != nil {
				return 0, err
			}
			i = jsonWS(data, i)
			if i >= len(data) || data[i] != ':' {
				return 0, jsonSyntaxErr(data, i, "expected :")
			}
			i = jsonWS(data, i+1)
			if i >= len(data) {
				return 0, jsonSyntaxErr(data, i, "missing value")
			}
		}
		if c := data[i]; c == '{' || c == '[' {
			if len(stack) >= jsonMaxDepth {
				return 0, jsonSyntaxErr(data, i, "nesting too deep")
			}
			stack = append(stack, c)
			i++
			member, closing = true, true
			continue
		}
		var err error
		if i, err = jsonValue(data, i); err != nil {
			return 0, err
		}
		member, closing = false, true
	}
}

// jsonObject walks the object whose value starts at data[i] in one pass.
// For each member it calls fn with the key (without quotes, escapes kept)
// and the index where the value starts; fn either consumes the value itself
// (descending into it with jsonObject or jsonArray, or taking its bytes
// with jsonRaw) and returns its end, or returns -1 to have it skipped. It
// returns the index after the object. Another JSON value there has no
// members and is only checked.
func jsonObject(data []byte, i int, fn func(key []byte, v int) (int, error)) (int, error) {
	i = jsonWS(data, i)
	if i >= len(data) || data[i] != '{' {
		return jsonValue(data, i)
	}
	i = jsonWS(data, i+1)
	if i < len(data) && data[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return 0, jsonSyntaxErr(data, i, "expected object key")
		}
		end, err := jsonSkipString(data, i)
		if err != nil {
			return 0, err
		}
		key := data[i+1 : end-1]
		i = jsonWS(data, end)
		if i >= len(data) || data[i] != ':' {
			return 0, jsonSyntaxErr(data, i, "expected :")
		}
		i = jsonWS(data, i+1)
		vend, err := fn(key, i)
		if err != nil {
			return 0, err
		}
		if vend < 0 {
			if vend, err = jsonValue(data, i); err != nil {
				return 0, err
			}
		}
		i = jsonWS(data, vend)
		if i >= len(data) {
			return 0, jsonSyntaxErr(data, i, "unterminated object")
		}
		switch data[i] {
		case ',':
			i = jsonWS(data, i+1)
		case '}':
			return i + 1, nil
		default:
			return 0, jsonSyntaxErr(data, i, "expected , or }")
		}
	}
}

// jsonArray walks the array whose value starts at data[i], calling fn with
// the start of each element; fn returns the element's end or -1 to skip
// it, as for jsonObject. Another JSON value there has no elements.
func jsonArray(data []byte, i int, fn func(v int) (int, error)) (int, error) {
	i = jsonWS(data, i)
	if i >= len(data) || data[i] != '[' {
		return jsonValue(data, i)
	}
	i = jsonWS(data, i+1)
	if i < len(data) && data[i] == ']' {
		return i + 1, nil
	}
	for {
		end, err := fn(i)
		if err != nil {
			return 0, err
		}
		if end < 0 {
			if end, err = jsonValue(data, i); err != nil {
				return 0, err
			}
		}
		i = jsonWS(data, end)
		if i >= len(data) {
			return 0, jsonSyntaxErr(data, i, "unterminated array")
		}
		switch data[i] {
		case ',':
			i = jsonWS(data, i+1)
		case ']':
			return i + 1, nil
		default:
			return 0, jsonSyntaxErr(data, i, "expected , or ]")
		}
	}
}

// jsonRaw takes the bytes of the value at data[v] into *dst and returns
// its end.
func jsonRaw(data []byte, v int, dst *[]byte) (int, error) {
	end, err := jsonValue(data, v)
	if err == nil {
		*dst = data[v:end]
	}
	return end, err
}

// jsonField names a member to pick and where its raw value goes.
type jsonField struct {
	key string
	dst *[]byte
}

// jsonPick walks the object at data[v], storing the raw value of each
// member named in fields, and returns the object's end.
func jsonPick(data []byte, v int, fields ...jsonField) (int, error) {
	return jsonObject(data, v, func(key []byte, v int) (int, error) {
		return jsonPickMember(data, key, v, fields)
	})
}

// jsonPickMember takes the value at data[v] if key is one of fields, or
// has it skipped (-1).
func jsonPickMember(data, key []byte, v int, fields []jsonField) (int, error) {
	for _, f := range fields {
		if string(key) == f.key {
			return jsonRaw(data, v, f.dst)
		}
	}
	return -1, nil
}

// jsonPickLine is jsonPick for a whole line.
func jsonPickLine(line []byte, fields ...jsonField) error {
	end, err := jsonPick(line, 0, fields...)
	if err != nil {
		return err
	}
	return jsonTrailer(line, end)
}

// jsonPickError is jsonPickLine that also reads .error.message, the
// shape Codex's turn.failed and Gemini's result use, into msg.
func jsonPickError(line []byte, msg *[]byte, fields ...jsonField) error {
	return jsonLine(line, func(key []byte, v int) (int, error) {
		if string(key) == "error" {
			return jsonPick(line, v, jsonField{"message", msg})
		}
		return jsonPickMember(line, key, v, fields)
	})
}

// jsonLine walks a whole line that must be one JSON object.
func jsonLine(line []byte, fn func(key []byte, v int) (int, error)) error {
	end, err := jsonObject(line, 0, fn)
	if err != nil {
		return err
	}
	return jsonTrailer(line, end)
}

// jsonFields calls fn with the raw key and raw value of each member of
// the object data holds; empty data or another JSON value has no members.
// An error means data is not JSON.
func jsonFields(data []byte, fn func(key, val []byte)) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	return jsonLine(data, func(key []byte, v int) (int, error) {
		end, err := jsonValue(data, v)
		if err == nil {
			fn(key, data[v:end])
		}
		return end, err
	})
}

// jsonTrailer refuses anything but whitespace after a top-level value.
func jsonTrailer(data []byte, i int) error {
	if i = jsonWS(data, i); i != len(data) {
		return jsonSyntaxErr(data, i, "data after the value")
	}
	return nil
}

// jsonElements calls fn with each raw element of the array that data
// holds. Another value (null, say) has no elements.
func jsonElements(data []byte, fn func(val []byte)) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	_, err := jsonArray(data, 0, func(v int) (int, error) {
		end, err := jsonValue(data, v)
		if err == nil {
			fn(data[v:end])
		}
		return end, err
	})
	return err
}

// textArena makes the strings of assistant text, which make up most lines
// of a stream, from shared blocks instead of one allocation each. A block
// is a strings.Builder that is only ever appended to, so the strings cut
// from it stay as they are. A string that is kept keeps its whole block
// alive, so only short texts go there.
type textArena struct {
	block   strings.Builder
	scratch []byte // an escaped string, decoded
}

const (
	// arenaBlock is the size of one block of a textArena.
	arenaBlock = 32 << 10
	// arenaMaxText is the longest text a textArena puts into a block.
	arenaMaxText = arenaBlock / 16
)

// text decodes a raw JSON string into text ending with a newline, as a
// message is shown; anything else is "".
func (a *textArena) text(raw []byte) string { return a.decode(raw, true) }

// str decodes a raw JSON string value as jsonStr does.
func (a *textArena) str(raw []byte) string { return a.decode(raw, false) }

// scanned decodes a string jsonText read, as text does when nl is set
// and as str does otherwise.
func (a *textArena) scanned(s scannedText, nl bool) string {
	if s.plain {
		return a.plain(s.raw[1:len(s.raw)-1], s.ascii, nl)
	}
	return a.decode(s.raw, nl)
}

func (a *textArena) decode(raw []byte, nl bool) string {
	if len(raw) < 2 || raw[0] != '"' {
		return ""
	}
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return a.plain(body, false, nl)
	}
	b, ok := appendUnescaped(a.scratch[:0], body)
	if cap(b) <= arenaBlock {
		a.scratch = b // kept for the next one; a huge one is not kept
	}
	if ok {
		return a.add(b, nl)
	}
	s := jsonStr(raw)
	if nl && !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s
}

// plain is decode for the body of a string known to hold no escapes;
// ascii says it is known to be all ASCII.
func (a *textArena) plain(body []byte, ascii, nl bool) string {
	if !ascii && !utf8.Valid(body) {
		s := strings.ToValidUTF8(string(body), "\uFFFD")
		if nl && !strings.HasSuffix(s, "\n") {
			s += "\n"
		}
		return s
	}
	return a.add(body, nl)
}

// add returns b, with a newline added when nl is set and b lacks one, as a
// string.
func (a *textArena) add(b []byte, nl bool) string {
	nl = nl && (len(b) == 0 || b[len(b)-1] != '\n')
	n := len(b)
	if nl {
		n++
	}
	if n == 0 {
		return ""
	}
	blk := &a.block
	if n > arenaMaxText {
		blk = new(strings.Builder)
		blk.Grow(n)
	} else if blk.Cap()-blk.Len() < n {
		blk.Reset()
		blk.Grow(arenaBlock)
	}
	start := blk.Len()
	blk.Write(b)
	if nl {
		blk.WriteByte('\n')
	}
	return blk.String()[start:]
}

// appendUnescaped appends the decoded body of a JSON string to dst. It
// leaves to encoding/json (ok false) what it does not handle exactly as
// encoding/json would: control characters, invalid UTF-8, escaped
// surrogates and broken escapes.
func appendUnescaped(dst, body []byte) (_ []byte, ok bool) {
	for len(body) > 0 {
		k := bytes.IndexByte(body, '\\')
		if k < 0 {
			k = len(body)
		}
		if !plainText(body[:k]) {
			return dst, false
		}
		dst = append(dst, body[:k]...)
		if body = body[k:]; len(body) == 0 {
			break
		}
		if len(body) < 2 {
			return dst, false
		}
		switch c := body[1]; c {
		case '"', '\\', '/':
			dst = append(dst, c)
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, ok := hex4(body[2:])
			if !ok || utf16.IsSurrogate(r) {
				return dst, false
			}
			dst = utf8.AppendRune(dst, r)
			body = body[6:]
			continue
		default:
			return dst, false
		}
		body = body[2:]
	}
	return dst, true
}

// plainText reports whether b is valid UTF-8 without control characters,
// which a JSON string may hold unescaped.
func plainText(b []byte) bool {
	for i, c := range b {
		if c < 0x20 {
			return false
		}
		if c >= utf8.RuneSelf {
			for _, c := range b[i:] {
				if c < 0x20 {
					return false
				}
			}
			return utf8.Valid(b[i:])
		}
	}
	return true
}

// hex4 reads the four hex digits of a \u escape.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// jsonStr decodes a raw JSON string value; anything else (null, a number)
// is "". Invalid UTF-8 becomes U+FFFD as encoding/json would make it.
func jsonStr(raw []byte) string {
	if len(raw) < 2 || raw[0] != '"' {
		return ""
	}
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		if utf8.Valid(body) {
			return string(body)
		}
		return strings.ToValidUTF8(string(body), "\uFFFD")
	}
	if b, ok := appendUnescaped(nil, body); ok {
		return string(b)
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// jsonIsNull reports whether a raw value is absent or JSON null.
func jsonIsNull(raw []byte) bool {
	return len(raw) == 0 || (len(raw) == 4 && string(raw) == "null")
}

// jsonTrue reports whether a raw value is JSON true.
func jsonTrue(raw []byte) bool { return len(raw) == 4 && string(raw) == "true" }
