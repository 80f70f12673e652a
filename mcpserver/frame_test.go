package mcpserver

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestCheckFrame: what passes to the SDK and what is answered here, with
// which code and id.
func TestCheckFrame(t *testing.T) {
	deep := `{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":` + strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth) + `}}`
	for _, c := range []struct {
		frame string
		code  int64  // 0: accepted
		id    string // the reply's id
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, 0, ""},
		{`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"todo_read"}}`, 0, ""},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, 0, ""},
		{`{"jsonrpc":"2.0","id":3,"result":{}}`, 0, ""},
		{`{"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"no"}}`, 0, ""},
		{` {"jsonrpc" : "2.0", "id":1, "method":"ping"} `, 0, ""},
		{`nope`, CodeParseError, "null"},
		{"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"\x00}", CodeParseError, "null"},
		{"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}", CodeParseError, "null"},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"} {}`, CodeParseError, "null"},
		{deep, CodeInvalidRequest, "null"},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, CodeInvalidRequest, "null"},
		{`[]`, CodeInvalidRequest, "null"},
		{`42`, CodeInvalidRequest, "null"},
		{`null`, CodeInvalidRequest, "null"},
		{`{"jsonrpc":"2.1","id":4,"method":"ping"}`, CodeInvalidRequest, "4"},
		{`{"jsonrpc":2.0,"id":"k","method":"ping"}`, CodeInvalidRequest, `"k"`},
		{`{"id":4,"method":"ping"}`, CodeInvalidRequest, "4"},
		{`{"jsonrpc":"2.0","id":{},"method":"ping"}`, CodeInvalidRequest, "null"},
		{`{"jsonrpc":"2.0","id":null,"method":"ping"}`, CodeInvalidRequest, "null"},
		{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, CodeInvalidRequest, "null"},
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, CodeInvalidRequest, "null"},
		{`{"jsonrpc":"2.0","id":1e300,"method":"ping"}`, CodeInvalidRequest, "null"},
		{`{"jsonrpc":"2.0","id":5,"method":""}`, CodeInvalidRequest, "5"},
		{`{"jsonrpc":"2.0","id":5,"method":["x"]}`, CodeInvalidRequest, "5"},
		{`{"jsonrpc":"2.0","id":5,"method":"ping","params":"x"}`, CodeInvalidRequest, "5"},
		{`{"jsonrpc":"2.0","id":5}`, CodeInvalidRequest, "5"},
		{`{"jsonrpc":"2.0","id":5,"result":{},"error":{}}`, CodeInvalidRequest, "5"},
		{`{"jsonrpc":"2.0"}`, CodeInvalidRequest, "null"},
	} {
		msg, fe := CheckFrame([]byte(c.frame))
		switch {
		case c.code == 0 && (fe != nil || msg.ID == nil && msg.Method == ""):
			t.Errorf("%.60q refused: %v", c.frame, fe)
		case c.code != 0 && fe == nil:
			t.Errorf("%.60q accepted, want error %d", c.frame, c.code)
		case c.code != 0 && (fe.Code != c.code || string(mustReplyID(t, fe)) != c.id):
			t.Errorf("%.60q: %d id %s (%s), want %d id %s", c.frame, fe.Code, mustReplyID(t, fe), fe.Message, c.code, c.id)
		}
	}
}

// mustReplyID is the id of fe's reply, which must be a JSON-RPC error.
func mustReplyID(t testing.TB, fe *FrameError) json.RawMessage {
	t.Helper()
	var r struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	reply := fe.Reply()
	if err := json.Unmarshal(reply, &r); err != nil || r.JSONRPC != "2.0" || r.Error.Code != fe.Code || r.Error.Message == "" ||
		strings.ContainsAny(string(reply), "\n\r") {
		t.Fatalf("reply %q is not one line of JSON-RPC error (%v)", reply, err)
	}
	return r.ID
}

// FuzzCheckFrame: any frame is accepted as a message the MCP Go SDK's
// JSON-RPC decoder reads the same way (the same kind, method and id), or
// answered with a one-line error reply whose id is null, a string or an
// integer; it never panics.
func FuzzCheckFrame(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"x","result":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"1.0","id":{"a":1},"method":"ping","params":[[[]]]}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"todo_read","arguments":null}}`,
		"[\x00]", `"`, `{"id":9007199254740993}`, `null`, ` {"jsonrpc" : "2.0","id":-3,"method":"x"} `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		msg, fe := CheckFrame(frame)
		if fe == nil {
			sdk, err := jsonrpc.DecodeMessage(frame)
			if err != nil {
				t.Fatalf("accepted %q, which the SDK refuses: %v", frame, err)
			}
			switch m := sdk.(type) {
			case *jsonrpc.Request:
				if m.Method != msg.Method || m.IsCall() != (msg.ID != nil) || (msg.ID != nil && !sameID(t, m.ID, msg.ID)) {
					t.Fatalf("%q: the SDK reads request %q %v, CheckFrame %q %s", frame, m.Method, m.ID.Raw(), msg.Method, msg.ID)
				}
			case *jsonrpc.Response:
				if msg.Method != "" || !sameID(t, m.ID, msg.ID) {
					t.Fatalf("%q: the SDK reads a response to %v, CheckFrame %q %s", frame, m.ID.Raw(), msg.Method, msg.ID)
				}
			}
			return
		}
		if msg.ID != nil || msg.Method != "" || msg.Params != nil {
			t.Fatal("both a message and an error")
		}
		if fe.Code != CodeParseError && fe.Code != CodeInvalidRequest {
			t.Fatalf("code %d", fe.Code)
		}
		id := string(mustReplyID(t, fe))
		if id != "null" && !validID(json.RawMessage(id)) {
			t.Fatalf("reply id %s", id)
		}
	})
}

// sameID reports whether the SDK's id is the raw id CheckFrame kept.
func sameID(t *testing.T, sdk jsonrpc.ID, raw json.RawMessage) bool {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("id %s: %v", raw, err)
	}
	if f, ok := v.(float64); ok {
		return sdk.Raw() == int64(f)
	}
	return sdk.Raw() == v
}

// TestReadFrame: lines end at \n or \r\n, the last one may have no
// ending, and a line over the limit is skipped whole.
func TestReadFrame(t *testing.T) {
	in := "a\r\n" + strings.Repeat("x", 100) + "\nbc\n\nlast"
	r := bufio.NewReaderSize(strings.NewReader(in), 16)
	type got struct {
		line    string
		tooLong bool
		err     error
	}
	want := []got{{"a", false, nil}, {"", true, nil}, {"bc", false, nil}, {"", false, nil}, {"last", false, io.EOF}}
	for i, w := range want {
		line, tooLong, err := readFrame(r, 10)
		if string(line) != w.line || tooLong != w.tooLong || err != w.err {
			t.Errorf("frame %d: %q %v %v, want %+v", i, line, tooLong, err, w)
		}
	}
}
