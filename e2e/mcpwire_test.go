package e2e_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/todosh/todosh/agent/todotools"
)

// The raw JSON-RPC frames a client sends to `todosh mcp`, one per line.
const (
	frameInit        = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	frameInitialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// frameCall is a tools/call frame with request id id.
func frameCall(id int, tool string, args any) string {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	if err != nil {
		panic(err)
	}
	return string(b)
}

// wireReply is one JSON-RPC reply as todosh mcp writes it.
type wireReply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  *struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (r wireReply) text() string {
	if r.Result == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range r.Result.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

// parseReplies parses stdout of todosh mcp: one JSON object per line.
func parseReplies(t *testing.T, out string) []wireReply {
	t.Helper()
	var rs []wireReply
	for line := range strings.Lines(out) {
		var r wireReply
		if err := json.Unmarshal([]byte(line), &r); err != nil || r.JSONRPC != "2.0" {
			t.Fatalf("stdout line is not a JSON-RPC reply (%v): %q", err, line)
		}
		rs = append(rs, r)
	}
	return rs
}

// TestMCPEOFAnswersAll: requests followed by the end of input are all
// carried out and answered before todosh mcp exits (the SDK's stdio
// transport cancelled them at EOF, so a piped todo_write did nothing).
func TestMCPEOFAnswersAll(t *testing.T) {
	h := newHome(t)
	in := frameInit + "\n" + frameInitialized + "\n" +
		frameCall(2, todotools.Write, map[string]any{"todos": []map[string]any{{"content": "piped item", "status": "pending"}}}) + "\n" +
		frameCall(3, todotools.Read, map[string]any{}) + "\n"
	r := h.script(t, h.dir, in, "mcp", "--session", "p")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	rs := parseReplies(t, r.stdout)
	if len(rs) != 3 {
		t.Fatalf("%d replies, want 3 (initialize, todo_write, todo_read):\n%s", len(rs), r.stdout)
	}
	byID := map[string]wireReply{}
	for _, x := range rs {
		byID[string(x.ID)] = x
	}
	if w := byID["2"]; w.Error != nil || w.Result == nil || w.Result.IsError || !strings.Contains(w.text(), "Saved the list") {
		t.Errorf("todo_write reply: %+v %q", w.Error, w.text())
	}
	if rd := byID["3"]; !strings.Contains(rd.text(), "piped item") {
		t.Errorf("todo_read after todo_write (in order) = %q", rd.text())
	}
	h.assertList(t, "p", "piped item")
}

// mcpWire is todosh mcp driven over its raw stdin and stdout.
type mcpWire struct {
	t       *testing.T
	in      io.WriteCloser
	replies chan wireReply
	cmd     *exec.Cmd
}

func (h home) startWire(t *testing.T, args ...string) *mcpWire {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"mcp"}, args...)...)
	cmd.Env, cmd.Dir = h.env(), h.dir
	in, out, stderr := startPiped(t, cmd)
	w := &mcpWire{t: t, in: in, replies: make(chan wireReply, 100), cmd: cmd}
	go func() {
		defer close(w.replies)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var r wireReply
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Errorf("stdout line is not JSON: %v: %.200q", err, sc.Text())
				return
			}
			w.replies <- r
		}
	}()
	t.Cleanup(func() {
		in.Close()
		cmd.Wait()
		if stderr.Len() > 0 {
			t.Logf("todosh mcp stderr: %s", stderr.String())
		}
	})
	return w
}

func (w *mcpWire) send(frames ...string) {
	w.t.Helper()
	for _, f := range frames {
		if _, err := io.WriteString(w.in, f+"\n"); err != nil {
			w.t.Fatalf("write to todosh mcp: %v (has it exited?)", err)
		}
	}
}

// next is the next reply; deadline only bounds a hang.
func (w *mcpWire) next() wireReply {
	w.t.Helper()
	select {
	case r, ok := <-w.replies:
		if !ok {
			w.t.Fatalf("todosh mcp closed its output (exited?)")
		}
		return r
	case <-time.After(deadline):
		w.t.Fatalf("no reply from todosh mcp")
	}
	return wireReply{}
}

// TestMCPBadFrames: every malformed frame gets a JSON-RPC error reply
// (-32700 when it is not JSON, -32600 when it is not a valid request), and
// the server goes on serving; a todo_write sent just before one is
// answered.
func TestMCPBadFrames(t *testing.T) {
	h := newHome(t)
	w := h.startWire(t, "--session", "bad")
	w.send(frameInit)
	if r := w.next(); r.Error != nil || string(r.ID) != "1" {
		t.Fatalf("initialize: %+v", r)
	}
	w.send(frameInitialized)

	deep := `{"jsonrpc":"2.0","id":8,"method":"ping","params":{"x":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}}`
	huge := `{"jsonrpc":"2.0","id":9,"method":"ping","params":{"x":"` + strings.Repeat("A", 50<<20) + `"}}`
	for i, c := range []struct {
		name, frame string
		code        int
		id          string
	}{
		{"not JSON", "hello there", -32700, "null"},
		{"NUL bytes", "{\"jsonrpc\":\"2.0\",\"id\":5,\x00\"method\":\"ping\"}", -32700, "null"},
		{"NUL in a string", "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"pi\x00ng\"}", -32700, "null"},
		{"truncated", `{"jsonrpc":"2.0","id":5,"method":`, -32700, "null"},
		{"wrong version", `{"jsonrpc":"1.0","id":6,"method":"ping"}`, -32600, "6"},
		{"no version", `{"id":6,"method":"ping"}`, -32600, "6"},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, "null"},
		{"array id", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, -32600, "null"},
		{"method not a string", `{"jsonrpc":"2.0","id":7,"method":12}`, -32600, "7"},
		{"neither request nor response", `{"jsonrpc":"2.0","id":7}`, -32600, "7"},
		{"not an object", `"ping"`, -32600, "null"},
		{"empty batch", `[]`, -32600, "null"},
		{"deep nesting", deep, -32600, "null"},
		{"50 MB frame", huge, -32600, "null"},
	} {
		// A todo_write just before the bad frame is answered and kept.
		w.send(frameCall(100+i, todotools.Write, map[string]any{"todos": []map[string]any{{"content": fmt.Sprintf("before %d", i), "status": "pending"}}}), c.frame)
		var bad, wrote *wireReply
		for range 2 {
			r := w.next()
			switch {
			case string(r.ID) == fmt.Sprint(100+i):
				wrote = &r
			case r.Error != nil:
				bad = &r
			default:
				t.Fatalf("%s: unexpected reply %+v", c.name, r)
			}
		}
		if bad.Error.Code != c.code || string(bad.ID) != c.id {
			t.Errorf("%s: error %d %q id %s, want %d id %s", c.name, bad.Error.Code, bad.Error.Message, bad.ID, c.code, c.id)
		}
		if wrote.Result == nil || wrote.Result.IsError || !strings.Contains(wrote.text(), "Saved the list") {
			t.Errorf("%s: the todo_write before it: %+v %q", c.name, wrote.Error, wrote.text())
		}
		// And the server still serves.
		w.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, 200+i))
		if r := w.next(); string(r.ID) != fmt.Sprint(200+i) || r.Error != nil {
			t.Fatalf("%s: ping after it: %+v", c.name, r)
		}
	}
	h.assertList(t, "bad", "before 13")
}

// TestMCPHandshake drives todosh mcp's own server over the wire as a
// client of a newer protocol would: a probe of server/discover is
// method-not-found, a call before initialize is refused, initialize
// answers the client's version when todosh speaks it and else the newest
// it speaks, notifications get no reply, a second initialize and an
// unknown method are errors, and the session goes on through all of it.
func TestMCPHandshake(t *testing.T) {
	h := newHome(t)
	initFrame := func(id int, version string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`, id, version)
	}
	w := h.startWire(t, "--session", "hs")
	w.send(`{"jsonrpc":"2.0","id":"probe","method":"server/discover","params":{}}`)
	if r := w.next(); r.Error == nil || r.Error.Code != -32601 || string(r.ID) != `"probe"` {
		t.Fatalf("server/discover: %+v", r)
	}
	w.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if r := w.next(); r.Error == nil || r.Error.Code != -32600 || !strings.Contains(r.Error.Message, "initializ") {
		t.Fatalf("tools/list before initialize: %+v", r)
	}
	w.send(initFrame(2, "2026-07-28"))
	if r := w.next(); r.Error != nil || string(r.ID) != "2" {
		t.Fatalf("initialize: %+v", r.Error)
	}
	w.send(frameInitialized, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`,
		initFrame(3, "2025-06-18"), `{"jsonrpc":"2.0","id":4,"method":"todos/list"}`, `{"jsonrpc":"2.0","id":5,"method":"ping"}`)
	for _, want := range []struct {
		id   string
		code int
	}{{"3", -32600}, {"4", -32601}, {"5", 0}} {
		r := w.next()
		if string(r.ID) != want.id || (want.code == 0) != (r.Error == nil) || (r.Error != nil && r.Error.Code != want.code) {
			t.Errorf("reply %s %+v, want id %s code %d (notifications get no reply)", r.ID, r.Error, want.id, want.code)
		}
	}

	// The version and who the server is, each from one piped session.
	for asked, want := range map[string]string{"2026-07-28": "2025-11-25", "2025-06-18": "2025-06-18", "2024-11-05": "2024-11-05", "": "2025-11-25"} {
		r := h.script(t, h.dir, initFrame(1, asked)+"\n", "mcp", "--session", "hs")
		var got struct {
			Result struct {
				ProtocolVersion string `json:"protocolVersion"`
				ServerInfo      struct {
					Name string `json:"name"`
				} `json:"serverInfo"`
				Capabilities map[string]json.RawMessage `json:"capabilities"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || got.Result.ProtocolVersion != want ||
			got.Result.ServerInfo.Name != "todosh" || got.Result.Capabilities["tools"] == nil {
			t.Errorf("initialize asking %q: %q (%v), want version %s", asked, r.stdout, err, want)
		}
	}
}
