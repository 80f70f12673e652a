package clis

import (
	"encoding/json"
	"fmt"
	"strings"
)

// A line of a CLI's stream is decoded by encoding/json once, into its
// top-level members as raw values (jsonObj); a parser reads the few
// members it needs, and decodes a payload that matters (a todo list) into
// its own type. A member of a type the parser does not expect reads as
// absent, never as a malformed line: only a line that is not one JSON
// object is malformed. Decoding whole lines costs at most 0.5 % of the
// fastest recorded turn (docs/performance.md, BenchmarkRecordedTurnJSON).

// jsonObj is a JSON object's members as raw values, by exact name.
type jsonObj map[string]json.RawMessage

// decodeLine decodes a line that must be one JSON object.
func decodeLine(line []byte) (jsonObj, error) {
	var m jsonObj
	if err := json.Unmarshal(line, &m); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	if m == nil {
		return nil, fmt.Errorf("invalid JSON: null, not an object")
	}
	return m, nil
}

// str is member key as a string; "" when it is absent or not a string.
func (m jsonObj) str(key string) string { return jsonStr(m[key]) }

// obj is member key as an object; nil when it is absent or not an object.
func (m jsonObj) obj(key string) jsonObj { return jsonObject(m[key]) }

// errorMessage is .error.message, the shape Codex's turn.failed and
// Gemini's and Qwen Code's results use; "" when there is none.
func (m jsonObj) errorMessage() string { return m.obj("error").str("message") }

// jsonObject is raw as an object's members; nil for any other value.
func jsonObject(raw []byte) jsonObj {
	var m jsonObj
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

// jsonArray is raw as an array's raw elements; nil for any other value.
func jsonArray(raw []byte) []json.RawMessage {
	var a []json.RawMessage
	if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &a) != nil {
		return nil
	}
	return a
}

// jsonStr decodes a raw JSON string value; anything else (null, a number)
// is "". Invalid UTF-8 becomes U+FFFD, as encoding/json makes it.
func jsonStr(raw []byte) string {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// jsonText is a raw JSON string as a message is shown: ending with a
// newline; anything else is "".
func jsonText(raw []byte) string {
	if len(raw) == 0 || raw[0] != '"' {
		return ""
	}
	s := jsonStr(raw)
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s
}

// jsonIsNull reports whether a raw value is absent or JSON null.
func jsonIsNull(raw []byte) bool {
	return len(raw) == 0 || string(raw) == "null"
}

// jsonTrue reports whether a raw value is JSON true.
func jsonTrue(raw []byte) bool { return string(raw) == "true" }
