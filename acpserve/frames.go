package acpserve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// MaxMessage is the longest message todosh reads from the editor. The SDK
// gives up on the whole connection at a line of 10 MiB; a longer line is
// dropped here with an error reply instead, and the connection lives on.
const MaxMessage = 8 << 20

// The JSON-RPC 2.0 error codes of replies to messages the SDK would skip
// without a word.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// frameProbe is what CheckFrame reads of a message: what the SDK's own
// decoding needs to handle it.
type frameProbe struct {
	JSONRPC *string          `json:"jsonrpc"`
	ID      *json.RawMessage `json:"id"`
	Method  *string          `json:"method"`
	Params  json.RawMessage  `json:"params"`
	Result  json.RawMessage  `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// CheckFrame decides what happens to one line from the editor: pass it
// to the SDK, or answer it with reply (a JSON-RPC error, one line without
// its newline) and drop it. A blank line passes (the SDK skips it). The
// SDK itself answers unknown methods and bad parameters; what it would
// drop silently (a line that is not JSON, not an object, or not a
// request, notification or response) is answered here, with the
// message's id when one can be read.
func CheckFrame(line []byte) (pass bool, reply []byte) {
	trimmed := trimJSONSpace(line)
	if len(trimmed) == 0 {
		return true, nil
	}
	if !json.Valid(trimmed) {
		return false, errorReply(nil, codeParseError, "Parse error: the line is not JSON")
	}
	if trimmed[0] != '{' {
		return false, errorReply(nil, codeInvalidRequest, "Invalid Request: want one JSON-RPC message object (batches are not supported)")
	}
	var p frameProbe
	if err := json.Unmarshal(trimmed, &p); err != nil {
		var id *json.RawMessage
		var loose struct {
			ID *json.RawMessage `json:"id"`
		}
		if json.Unmarshal(trimmed, &loose) == nil {
			id = loose.ID
		}
		return false, errorReply(id, codeInvalidRequest, "Invalid Request: "+err.Error())
	}
	if p.JSONRPC == nil || *p.JSONRPC != "2.0" {
		return false, errorReply(p.ID, codeInvalidRequest, `Invalid Request: "jsonrpc" must be "2.0"`)
	}
	switch {
	case p.Method != nil && *p.Method != "":
		return true, nil
	case p.ID != nil && (p.Result != nil || p.Error != nil):
		return true, nil // a response to one of todosh's requests
	}
	return false, errorReply(p.ID, codeInvalidRequest, "Invalid Request: a message needs a method, or an id with a result or an error")
}

// errorReply is a JSON-RPC error response; id nil is null.
func errorReply(id *json.RawMessage, code int, msg string) []byte {
	b, err := json.Marshal(struct {
		JSONRPC string           `json:"jsonrpc"`
		ID      *json.RawMessage `json:"id"`
		Error   any              `json:"error"`
	}{"2.0", validID(id), map[string]any{"code": code, "message": msg}})
	if err != nil {
		panic(err) // only strings, numbers and checked JSON
	}
	return b
}

// validID keeps an id that JSON-RPC allows (string, number, null), else
// answers with null.
func validID(id *json.RawMessage) *json.RawMessage {
	if id == nil {
		return nil
	}
	t := bytes.TrimSpace(*id)
	if len(t) > 0 && (t[0] == '"' || t[0] == '-' || (t[0] >= '0' && t[0] <= '9')) {
		return id
	}
	return nil
}

// route is what the server does with a message CheckFrame passed, before
// the SDK sees it: the line to pass on (changed or not), or a reply that
// answers it here instead (a method the SDK does not know); nil route
// passes every line.
type route func(line []byte) (pass []byte, reply []byte)

// filterFrames copies the editor's messages from in to the returned
// reader, which the SDK reads, and writes the reply to every message
// CheckFrame drops, or route answers, to out. It ends (the reader then
// reports EOF) when in does. Nothing is copied before start is called:
// Serve calls it once the connection is stored where handlers find it.
func filterFrames(in io.Reader, out io.Writer, rt route) (r io.Reader, start func()) {
	pr, pw := io.Pipe()
	return pr, func() { go pump(in, out, pw, rt) }
}

// pump is filterFrames' copy, until in ends.
func pump(in io.Reader, out io.Writer, pw *io.PipeWriter, rt route) {
	br := bufio.NewReaderSize(in, 64<<10)
	for {
		line, err := readLine(br)
		if len(line) > 0 {
			pass, reply := CheckFrame(line)
			if errors.Is(err, errTooLong) {
				pass, reply = false, errorReply(nil, codeInvalidRequest, "Invalid Request: message over the limit of 8 MiB")
			}
			if pass && rt != nil {
				if line, reply = rt(line); line == nil {
					pass = false
				}
			}
			if pass {
				if _, werr := pw.Write(append(line, '\n')); werr != nil {
					return
				}
			} else {
				out.Write(append(reply, '\n'))
			}
		}
		if err != nil && !errors.Is(err, errTooLong) {
			pw.Close()
			return
		}
	}
}

var errTooLong = errors.New("line too long")

// readLine reads one line without its newline; a line over MaxMessage is
// read to its end, kept only in part, and reported with errTooLong.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	long := false
	for {
		chunk, err := br.ReadSlice('\n')
		if !long {
			line = append(line, chunk...)
			if len(line) > MaxMessage {
				long, line = true, line[:1]
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		if long {
			return line, errTooLong
		}
		return line, err
	}
}

// trimJSONSpace trims the white space JSON allows around a value (space,
// tab, line feed, carriage return) and nothing else: bytes.TrimSpace would
// also take a vertical tab or a form feed, and pass a line the SDK cannot
// decode as blank.
func trimJSONSpace(b []byte) []byte {
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}
