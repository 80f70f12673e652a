package mcpserver

// The frame decoder of the stdio transport (stdio.go): pure, fuzzed.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// MaxDepth is how deeply the values of a frame may nest. No MCP message
// todosh serves nests more than a few levels; the bound keeps decoding of
// a hostile frame cheap.
const MaxDepth = 64

// The JSON-RPC 2.0 error codes todosh mcp answers with.
const (
	CodeParseError     = -32700 // the frame is not JSON
	CodeInvalidRequest = -32600 // JSON, but not a valid JSON-RPC message, or a call out of order
	CodeMethodNotFound = -32601 // a method the server does not serve
	CodeInvalidParams  = -32602 // params of the wrong shape, or an unknown tool
)

// Message is one JSON-RPC 2.0 message CheckFrame accepted.
type Message struct {
	// ID is the request id as sent (a JSON string or integer); nil for a
	// notification.
	ID json.RawMessage
	// Method is the request's method; "" for a response (the client's
	// answer to a request, which todosh never sends, so it is ignored).
	Method string
	// Params is the request's params as sent; nil when there are none.
	Params json.RawMessage
}

// IsCall reports whether m is a request that expects a reply.
func (m Message) IsCall() bool { return m.Method != "" && m.ID != nil }

// FrameError is a frame CheckFrame refused: the JSON-RPC error reply the
// transport writes for it.
type FrameError struct {
	// ID is the request id to reply to, as sent; nil when it is missing or
	// not a valid id (the reply's id is then null).
	ID json.RawMessage
	// Code is CodeParseError (not JSON) or CodeInvalidRequest (JSON, but
	// not a valid JSON-RPC message).
	Code int64
	// Message says what is wrong, in one line.
	Message string
}

// Error is the reply's message.
func (e *FrameError) Error() string { return e.Message }

// Reply is the error reply's frame, without the newline.
func (e *FrameError) Reply() []byte { return errorReply(e.ID, e.Code, e.Message) }

func parseError(msg string) *FrameError {
	return &FrameError{Code: CodeParseError, Message: "parse error: " + msg}
}

func invalidRequest(id json.RawMessage, format string, args ...any) *FrameError {
	return &FrameError{ID: id, Code: CodeInvalidRequest, Message: "invalid request: " + fmt.Sprintf(format, args...)}
}

// CheckFrame validates one frame (one line of input, without its newline)
// and decodes it. A frame that is not JSON is a parse error; one that is
// JSON but not one valid JSON-RPC 2.0 message (a batch, a value nested
// deeper than MaxDepth, a version other than "2.0", an id that is not a
// string or an integer, a request without a string method, a response
// without exactly one of result and error) is an invalid request. Field
// names are matched exactly, as JSON-RPC spells them.
func CheckFrame(frame []byte) (Message, *FrameError) {
	if !utf8.Valid(frame) {
		return Message{}, parseError("the frame is not valid UTF-8")
	}
	if depth(frame) > MaxDepth {
		return Message{}, invalidRequest(nil, "values nested deeper than %d levels", MaxDepth)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(frame, &fields); err != nil {
		var syntax *json.SyntaxError
		switch frame = bytes.TrimLeft(frame, " \t\r\n"); {
		case errors.As(err, &syntax) || len(frame) == 0:
			return Message{}, parseError("the frame is not one JSON value")
		case frame[0] == '[':
			return Message{}, invalidRequest(nil, "batches are not supported: send one message per line")
		default:
			return Message{}, invalidRequest(nil, "a message must be a JSON object")
		}
	}
	if fields == nil { // the frame is null
		return Message{}, invalidRequest(nil, "a message must be a JSON object")
	}
	var m Message
	if rawID, ok := fields["id"]; ok {
		if !validID(rawID) {
			return Message{}, invalidRequest(nil, "id must be a string or an integer")
		}
		m.ID = rawID
	}
	if v, ok := fields["jsonrpc"]; !ok || string(v) != `"2.0"` {
		return Message{}, invalidRequest(m.ID, `"jsonrpc" must be "2.0"`)
	}
	method, isRequest := fields["method"]
	_, hasResult := fields["result"]
	_, hasError := fields["error"]
	switch {
	case isRequest:
		if json.Unmarshal(method, &m.Method) != nil || m.Method == "" {
			return Message{}, invalidRequest(m.ID, "method must be a non-empty string")
		}
		if p, ok := fields["params"]; ok {
			if !isStructured(p) {
				return Message{}, invalidRequest(m.ID, "params must be an object or an array")
			}
			if string(p) != "null" {
				m.Params = p
			}
		}
	case m.ID == nil:
		return Message{}, invalidRequest(nil, "a message without a method must be a response with an id")
	case hasResult == hasError:
		return Message{}, invalidRequest(m.ID, "a response has exactly one of result and error")
	}
	return m, nil
}

// validID reports whether an id is a JSON string or an integer that fits
// in 53 bits (a client in JavaScript reads a larger one as another
// number, so its reply would carry an id it never sent).
func validID(raw json.RawMessage) bool {
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

// errorReply is a JSON-RPC error reply to id (null when nil).
func errorReply(id json.RawMessage, code int64, message string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	type rpcError struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	// HTML escaping is off so that a reply's id is the request's, byte
	// for byte ("&" stays "&", not "\u0026").
	enc.SetEscapeHTML(false)
	if err := enc.Encode(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcError        `json:"error"`
	}{"2.0", id, rpcError{code, message}}); err != nil {
		panic(err) // an id CheckFrame accepted and a string always encode
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
