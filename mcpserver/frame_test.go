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
		{`nope`, jsonrpc.CodeParseError, "null"},
		{"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"\x00}", jsonrpc.CodeParseError, "null"},
		{"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}", jsonrpc.CodeParseError, "null"},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"} {}`, jsonrpc.CodeParseError, "null"},
		{deep, jsonrpc.CodeInvalidRequest, "null"},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, jsonrpc.CodeInvalidRequest, "null"},
		{`[]`, jsonrpc.CodeInvalidRequest, "null"},
		{`42`, jsonrpc.CodeInvalidRequest, "null"},
		{`null`, jsonrpc.CodeInvalidRequest, "null"},
		{`{"jsonrpc":"2.1","id":4,"method":"ping"}`, jsonrpc.CodeInvalidRequest, "4"},
		{`{"jsonrpc":2.0,"id":"k","method":"ping"}`, jsonrpc.CodeInvalidRequest, `"k"`},
		{`{"id":4,"method":"ping"}`, jsonrpc.CodeInvalidRequest, "4"},
		{`{"jsonrpc":"2.0","id":{},"method":"ping"}`, jsonrpc.CodeInvalidRequest, "null"},
		{`{"jsonrpc":"2.0","id":null,"method":"ping"}`, jsonrpc.CodeInvalidRequest, "null"},
		{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, jsonrpc.CodeInvalidRequest, "null"},
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, jsonrpc.CodeInvalidRequest, "null"},
		{`{"jsonrpc":"2.0","id":1e300,"method":"ping"}`, jsonrpc.CodeInvalidRequest, "null"},
		{`{"jsonrpc":"2.0","id":5,"method":""}`, jsonrpc.CodeInvalidRequest, "5"},
		{`{"jsonrpc":"2.0","id":5,"method":["x"]}`, jsonrpc.CodeInvalidRequest, "5"},
		{`{"jsonrpc":"2.0","id":5,"method":"ping","params":"x"}`, jsonrpc.CodeInvalidRequest, "5"},
		{`{"jsonrpc":"2.0","id":5}`, jsonrpc.CodeInvalidRequest, "5"},
		{`{"jsonrpc":"2.0","id":5,"result":{},"error":{}}`, jsonrpc.CodeInvalidRequest, "5"},
		{`{"jsonrpc":"2.0"}`, jsonrpc.CodeInvalidRequest, "null"},
	} {
		msg, fe := CheckFrame([]byte(c.frame))
		switch {
		case c.code == 0 && (fe != nil || msg == nil):
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

// FuzzCheckFrame: any frame is accepted as a message that encodes again,
// or answered with a one-line error reply whose id is null, a string or
// an integer; it never panics.
func FuzzCheckFrame(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"x","result":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"1.0","id":{"a":1},"method":"ping","params":[[[]]]}`,
		"[\x00]", `"`, `{"id":9007199254740993}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		msg, fe := CheckFrame(frame)
		if fe == nil {
			if msg == nil {
				t.Fatal("accepted without a message")
			}
			if _, err := jsonrpc.EncodeMessage(msg); err != nil {
				t.Fatalf("accepted %q but it does not encode: %v", frame, err)
			}
			return
		}
		if msg != nil {
			t.Fatal("both a message and an error")
		}
		if fe.Code != jsonrpc.CodeParseError && fe.Code != jsonrpc.CodeInvalidRequest {
			t.Fatalf("code %d", fe.Code)
		}
		id := string(mustReplyID(t, fe))
		if id != "null" && !validID(json.RawMessage(id)) {
			t.Fatalf("reply id %s", id)
		}
	})
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
