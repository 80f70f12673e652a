package mcpserver

// The frame validator of the stdio transport (stdio.go): pure, fuzzed.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/todosh/todosh/todostore"
)

// MaxDepth is how deeply the values of a frame may nest. No MCP message
// todosh serves nests more than a few levels; the bound keeps decoding of
// a hostile frame cheap.
const MaxDepth = 64

// FrameError is a frame CheckFrame refused: the JSON-RPC error reply the
// transport writes for it.
type FrameError struct {
	// ID is the request id to reply to, as sent; nil when it is missing or
	// not a valid id (the reply's id is then null).
	ID json.RawMessage
	// Code is jsonrpc.CodeParseError (not JSON) or
	// jsonrpc.CodeInvalidRequest (JSON, but not a valid JSON-RPC message).
	Code int64
	// Message says what is wrong, in one line.
	Message string
}

// Error is the reply's message.
func (e *FrameError) Error() string { return e.Message }

// Reply is the error reply's frame, without the newline.
func (e *FrameError) Reply() []byte {
	id := e.ID
	if id == nil {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}{e.Code, e.Message}})
	if err != nil { // an id CheckFrame accepted always marshals
		panic(err)
	}
	return b
}

func parseError(msg string) *FrameError {
	return &FrameError{Code: jsonrpc.CodeParseError, Message: "parse error: " + msg}
}

func invalidRequest(id json.RawMessage, format string, args ...any) *FrameError {
	return &FrameError{ID: id, Code: jsonrpc.CodeInvalidRequest, Message: "invalid request: " + fmt.Sprintf(format, args...)}
}

// CheckFrame validates one frame (one line of input, without its newline)
// and decodes it. A frame that is not JSON is a parse error; one that is
// JSON but not one valid JSON-RPC 2.0 message (a batch, a value nested
// deeper than MaxDepth, a version other than "2.0", an id that is not a
// string or an integer, a request without a string method, a response
// without exactly one of result and error) is an invalid request. The SDK
// only sees frames that passed, so no frame can end the session.
func CheckFrame(frame []byte) (jsonrpc.Message, *FrameError) {
	if !utf8.Valid(frame) {
		return nil, parseError("the frame is not valid UTF-8")
	}
	if depth(frame) > MaxDepth {
		return nil, invalidRequest(nil, "values nested deeper than %d levels", MaxDepth)
	}
	if !json.Valid(frame) {
		return nil, parseError("the frame is not one JSON value")
	}
	frame = bytes.TrimSpace(frame)
	if frame[0] == '[' {
		return nil, invalidRequest(nil, "batches are not supported: send one message per line")
	}
	if frame[0] != '{' {
		return nil, invalidRequest(nil, "a message must be a JSON object")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(frame, &fields); err != nil {
		return nil, parseError(err.Error())
	}
	rawID, hasID := fields["id"]
	var id json.RawMessage
	if hasID {
		if !validID(rawID) {
			return nil, invalidRequest(nil, "id must be a string or an integer")
		}
		id = rawID
	}
	if v, ok := fields["jsonrpc"]; !ok || string(bytes.TrimSpace(v)) != `"2.0"` {
		return nil, invalidRequest(id, `"jsonrpc" must be "2.0"`)
	}
	method, isRequest := fields["method"]
	_, hasResult := fields["result"]
	_, hasError := fields["error"]
	switch {
	case isRequest:
		var s string
		if json.Unmarshal(method, &s) != nil || s == "" {
			return nil, invalidRequest(id, "method must be a non-empty string")
		}
		if p, ok := fields["params"]; ok && !isStructured(p) {
			return nil, invalidRequest(id, "params must be an object or an array")
		}
	case !hasID:
		return nil, invalidRequest(nil, "a message without a method must be a response with an id")
	case hasResult == hasError:
		return nil, invalidRequest(id, "a response has exactly one of result and error")
	}
	msg, err := jsonrpc.DecodeMessage(frame)
	if err != nil {
		return nil, invalidRequest(id, "%s", todostore.ShortLine(err.Error(), 200))
	}
	return msg, nil
}

// validID reports whether an id is a JSON string or an integer that fits
// in 53 bits (the SDK decodes numbers as float64, so a larger or
// fractional one would be answered under another id).
func validID(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	if raw[0] == '"' {
		var s string
		return json.Unmarshal(raw, &s) == nil
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	return err == nil && n > -1<<53 && n < 1<<53
}

// isStructured reports whether v is a JSON object, an array or null.
func isStructured(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && (v[0] == '{' || v[0] == '[' || string(v) == "null")
}

// depth is how deeply arrays and objects nest in frame, counting brackets
// outside strings; it does not check that frame is JSON.
func depth(frame []byte) int {
	d, most := 0, 0
	inString, escaped := false, false
	for _, c := range frame {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			d++
			most = max(most, d)
		case c == ']' || c == '}':
			d--
		}
	}
	return most
}
