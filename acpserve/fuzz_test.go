package acpserve

import (
	"encoding/json"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"
)

// FuzzCheckFrame: any line is either passed (and then the SDK can decode
// it as a request, notification or response) or answered with one valid
// JSON-RPC error line; nothing panics.
func FuzzCheckFrame(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`,
		`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"a"}}`,
		`{"jsonrpc":"2.0","id":"x","result":null}`,
		`not json`, `[]`, `{}`, `{"id":[1]}`, `{"method":null,"id":1}`, "\t\n",
		`{"jsonrpc":"1.0","id":1,"method":"initialize"}`, `{"id":1,"method":"initialize"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		pass, reply := CheckFrame(line)
		if pass {
			if reply != nil {
				t.Fatalf("passed with a reply")
			}
			var m struct {
				ID     *json.RawMessage `json:"id"`
				Method string           `json:"method"`
			}
			if len(trimJSONSpace(line)) > 0 {
				if err := json.Unmarshal(line, &m); err != nil {
					t.Fatalf("passed a line the SDK cannot decode: %v", err)
				}
				if m.Method == "" && m.ID == nil {
					t.Fatalf("passed a message with neither method nor id")
				}
				var v struct {
					JSONRPC string `json:"jsonrpc"`
				}
				if json.Unmarshal(line, &v); v.JSONRPC != "2.0" {
					t.Fatalf("passed a message whose jsonrpc is %q", v.JSONRPC)
				}
			}
			return
		}
		var r struct {
			JSONRPC string           `json:"jsonrpc"`
			ID      *json.RawMessage `json:"id"`
			Error   *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(reply, &r); err != nil || r.JSONRPC != "2.0" || r.Error == nil || r.Error.Code >= 0 || r.Error.Message == "" {
			t.Fatalf("bad reply %s: %v", reply, err)
		}
		for _, b := range reply {
			if b == '\n' {
				t.Fatalf("reply of more than one line: %q", reply)
			}
		}
	})
}

// FuzzStampPrompt: a prompt line the SDK would take stays one it takes,
// with the same prompt, and gets the next number of its session's queue;
// any other line passes unchanged; nothing panics.
func FuzzStampPrompt(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"a","prompt":[{"type":"text","text":"hi"}]}}`,
		`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"a","prompt":[],"_meta":{"x":1}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"a","prompt":[],"_meta":null}}`,
		`{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"a","prompt":[],"_meta":[1]}}`,
		`{"jsonrpc":"2.0","id":5,"method":"session/prompt","params":{"prompt":[]}}`,
		`{"jsonrpc":"2.0","id":6,"method":"session/prompt","params":7}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		s := &Server{queues: map[string]*promptQueue{}}
		out := s.stampPrompt(line)
		var before acp.PromptRequest
		var msg struct {
			Params json.RawMessage `json:"params"`
		}
		ok := json.Unmarshal(line, &msg) == nil && json.Unmarshal(msg.Params, &before) == nil && before.Validate() == nil
		if !ok || string(out) == string(line) {
			return // unchanged, or a line the SDK refuses (and then no number was taken: checked below)
		}
		var m struct {
			Params json.RawMessage `json:"params"`
		}
		var after acp.PromptRequest
		if err := json.Unmarshal(out, &m); err != nil || json.Unmarshal(m.Params, &after) != nil || after.Validate() != nil {
			t.Fatalf("stamped line %s does not decode: %v", out, err)
		}
		if promptSeq(after) != 1 || s.queue(string(after.SessionId)).arrived != 1 {
			t.Fatalf("stamped line %s: number %d", out, promptSeq(after))
		}
		b1, _ := json.Marshal(before.Prompt)
		b2, _ := json.Marshal(after.Prompt)
		if string(b1) != string(b2) || before.SessionId != after.SessionId {
			t.Fatalf("the prompt changed: %s -> %s", line, out)
		}
	})
}

// TestStampPromptKeepsBytes: the editor's strings keep their bytes ("&"
// is not written "\u0026"), its id above all.
func TestStampPromptKeepsBytes(t *testing.T) {
	s := &Server{queues: map[string]*promptQueue{}}
	out := string(s.stampPrompt([]byte(`{"jsonrpc":"2.0","id":"a&b","method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"<x> & y"}]}}`)))
	for _, want := range []string{`"id":"a&b"`, `"text":"<x> & y"`, `"_meta":{"todosh/seq":1}`} {
		if !strings.Contains(out, want) {
			t.Errorf("stamped line %s lacks %s", out, want)
		}
	}
}
