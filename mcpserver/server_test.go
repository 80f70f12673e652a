package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/agent/todotools"
	"github.com/todosh/todosh/todostore"
)

var testNow = time.Date(2026, 11, 23, 14, 0, 0, 0, time.UTC)

// TestResolveSession: --session, else $TODOSH_SESSION, else the most
// recent session of the directory, else a new one; bad ids are errors.
func TestResolveSession(t *testing.T) {
	st := todostore.Open(t.TempDir())
	if _, err := st.Update("here", func(s *todostore.Session) error { s.Cwd = "/src/a"; return nil }); err != nil {
		t.Fatal(err)
	}
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == agent.SessionEnv {
				return v
			}
			return ""
		}
	}
	tests := []struct {
		name    string
		cfg     Config
		want    string // "new" for a fresh id
		wantErr string
	}{
		{"flag wins", Config{SessionID: "flag", Getenv: env("env"), Cwd: "/src/a"}, "flag", ""},
		{"env next", Config{Getenv: env("env"), Cwd: "/src/a"}, "env", ""},
		{"directory next", Config{Getenv: env(""), Cwd: "/src/a"}, "here", ""},
		{"else new", Config{Cwd: "/src/b"}, "new", ""},
		{"bad flag", Config{SessionID: "../x"}, "", "--session: invalid session id"},
		{"bad env", Config{Getenv: env("a/b")}, "", "$TODOSH_SESSION: invalid session id"},
	}
	for _, tt := range tests {
		tt.cfg.Store, tt.cfg.Now = st, func() time.Time { return testNow }
		got, err := ResolveSession(tt.cfg)
		switch {
		case tt.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: error %v, want %q", tt.name, err, tt.wantErr)
			}
		case err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.want == "new":
			if !strings.HasPrefix(got, "20261123-140000-") {
				t.Errorf("%s: %q, want a new id", tt.name, got)
			}
		case got != tt.want:
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// connect serves a session over an in-memory pipe and connects the MCP
// Go SDK's client to it, the reference client of these tests.
func connect(t testing.TB, cfg Config, id string) *mcp.ClientSession {
	t.Helper()
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := New(cfg, id).Run(context.Background(), &Stdio{In: sr, Out: sw})
		if errors.Is(err, io.EOF) {
			err = nil // the client went away
		}
		sw.Close()
		done <- err
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(), &mcp.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		if err := <-done; err != nil {
			t.Errorf("the server ended with %v", err)
		}
	})
	return cs
}

// TestSDKClient serves the SDK's client: the handshake, the tools with
// todotools' schemas, a refused call as a tool error (never a protocol
// error), a call that writes, and an unknown tool as invalid params.
func TestSDKClient(t *testing.T) {
	st := todostore.Open(t.TempDir())
	cs := connect(t, Config{Store: st, Cwd: "/src/x", Version: "1"}, "s1")
	ctx := context.Background()
	if r := cs.InitializeResult(); !slices.Contains(mcp.SupportedProtocolVersions(), r.ProtocolVersion) || r.ServerInfo.Name != agent.MCPName ||
		r.Capabilities.Tools == nil || !strings.Contains(r.Instructions, "session s1") {
		t.Errorf("initialize: %+v %+v", r, r.ServerInfo)
	}
	if err := cs.Ping(ctx, nil); err != nil {
		t.Errorf("ping: %v", err)
	}
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	specs := (&todotools.Tools{}).Specs()
	if len(list.Tools) != len(specs) {
		t.Fatalf("%d tools, want %d", len(list.Tools), len(specs))
	}
	// tools/list lists the tools by name.
	slices.SortFunc(specs, func(a, b todotools.Spec) int { return strings.Compare(a.Name, b.Name) })
	for i, tl := range list.Tools {
		var got, want any
		b, _ := json.Marshal(tl.InputSchema)
		json.Unmarshal(b, &got)
		json.Unmarshal(specs[i].Parameters, &want)
		if tl.Name != specs[i].Name || tl.Description != specs[i].Description || !reflect.DeepEqual(got, want) {
			t.Errorf("tool %d: %s %s, want %s %s", i, tl.Name, b, specs[i].Name, specs[i].Parameters)
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "todo_tick", Arguments: map[string]any{"id": 7}})
	if err != nil || !res.IsError {
		t.Fatalf("bad tick: %v %+v", err, res)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "todo_write", Arguments: map[string]any{"todos": []map[string]any{{"content": "a", "status": "pending"}}}})
	if err != nil || res.IsError || len(res.Content) != 1 || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "Saved the list") {
		t.Fatalf("write: %v %+v", err, res)
	}
	s, err := st.Load("s1")
	if err != nil || len(s.Todos) != 1 || s.Cwd != "/src/x" {
		t.Errorf("after todo_write: %+v %v (the cwd is recorded in a session without one)", s, err)
	}
	var werr *jsonrpc.Error
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "todo_delete"}); !errors.As(err, &werr) || werr.Code != CodeInvalidParams {
		t.Errorf("unknown tool: %v, want invalid params", err)
	}
}

// exchange serves session id of cfg to frames, one per line, on the stdio
// transport until their end, and returns the replies in the order
// written.
func exchange(t testing.TB, cfg Config, id string, frames ...string) []string {
	t.Helper()
	var out bytes.Buffer
	in := strings.NewReader(strings.Join(frames, "\n") + "\n")
	if err := Serve(context.Background(), Config{Store: cfg.Store, SessionID: id, Cwd: cfg.Cwd, Version: cfg.Version}, &Stdio{In: in, Out: &out}); err != nil {
		t.Fatalf("serve: %v", err)
	}
	return slices.Collect(strings.Lines(out.String()))
}

// TestHandle: what each message is answered, in order, on one session:
// the handshake and its version negotiation, calls before it, unknown
// methods, notifications, bad params.
func TestHandle(t *testing.T) {
	st := todostore.Open(t.TempDir())
	cases := []struct {
		frame string
		want  string // the reply with its id, "" for none; a prefix of it
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"method \"tools/list\" is invalid during session initialization"}}`},
		{`{"jsonrpc":"2.0","id":"p","method":"ping"}`, `{"jsonrpc":"2.0","id":"p","result":{}}`},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, ``},
		// The SDK answers an initialize it cannot read as an invalid request.
		{`{"jsonrpc":"2.0","id":2,"method":"initialize"}`, `{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"invalid request: missing required \"params\""}}`},
		{`{"jsonrpc":"2.0","id":2,"method":"initialize","params":[]}`, `{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"handling 'initialize': unmarshaling`},
		{`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":7}}`, `{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"handling 'initialize': unmarshaling`},
		{`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
			`{"jsonrpc":"2.0","id":3,"result":{"capabilities":{"logging":{},"tools":{"listChanged":true}},"instructions":"todosh keeps this session's todo list (session h) on disk`},
		{`{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`, `{"jsonrpc":"2.0","id":4,"error":{"code":-32600,"message":"duplicate \"initialize\" received"}}`},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, ``},
		{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`, ``},
		{`{"jsonrpc":"2.0","method":"notifications/whatever"}`, ``},
		{`{"jsonrpc":"2.0","id":5,"method":"notifications/initialized"}`, `{"jsonrpc":"2.0","id":5,"error":{"code":-32600,`},
		{`{"jsonrpc":"2.0","id":6,"method":"todos/list"}`, `{"jsonrpc":"2.0","id":6,"error":{"code":-32601,"message":"method not found: \"todos/list\""}}`},
		{`{"jsonrpc":"2.0","id":7,"method":"server/discover","params":{}}`, `{"jsonrpc":"2.0","id":7,"error":{"code":-32601,`},
		{`{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{"cursor":"x"}}`, `{"jsonrpc":"2.0","id":8,"error":{"code":-32602,"message":"invalid params"}}`},
		{`{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{}}`, `{"jsonrpc":"2.0","id":8,"result":{"ttlMs":0,"cacheScope":"public","tools":[{"description":"Stop and ask the person`},
		{`{"jsonrpc":"2.0","id":9,"method":"tools/call"}`, `{"jsonrpc":"2.0","id":9,"error":{"code":-32600,"message":"invalid request: missing required \"params\""}}`},
		{`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":[1]}`, `{"jsonrpc":"2.0","id":9,"error":{"code":-32602,`},
		{`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"arguments":{}}}`, `{"jsonrpc":"2.0","id":9,"error":{"code":-32602,`},
		{`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":7}}`, `{"jsonrpc":"2.0","id":9,"error":{"code":-32602,`},
		{`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"todo_delete"}}`, `{"jsonrpc":"2.0","id":10,"error":{"code":-32602,"message":"unknown tool \"todo_delete\""}}`},
		{`{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"todo_read","arguments":null}}`, `{"jsonrpc":"2.0","id":11,"result":{"content":[{"type":"text","text":"`},
		{`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"todo_write","arguments":{"todos":"x"}}}`, `{"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"todo_write: argument todos must be an array`},
		{`{"jsonrpc":"2.0","id":12,"result":{}}`, ``},
	}
	var frames []string
	for _, c := range cases {
		frames = append(frames, c.frame)
	}
	// Calls are answered one at a time in order, notifications not at all.
	replies := exchange(t, Config{Store: st, Cwd: "/src", Version: "7"}, "h", frames...)
	for _, c := range cases {
		if c.want == "" {
			continue
		}
		if len(replies) == 0 {
			t.Fatalf("%s: no reply", c.frame)
		}
		got := strings.TrimSuffix(replies[0], "\n")
		replies = replies[1:]
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("%s\n got %s\nwant %s…", c.frame, got, c.want)
		}
		if strings.Contains(got, "isError") != strings.Contains(c.want, "argument todos") {
			t.Errorf("%s: isError wrong in %s", c.frame, got)
		}
	}
	if len(replies) > 0 {
		t.Errorf("replies to notifications: %q", replies)
	}
	if _, err := st.Load("h"); err == nil {
		t.Error("no call wrote, yet the session exists")
	}
}

// TestNewerProtocolRefused: a client of MCP 2026-07-28 starts with
// server/discover and then opens subscriptions/listen, a call that stays
// open; served, it held every later call behind it (calls are handed over
// one at a time) and Claude Code 2.1.332 waited 3 s, then connected again.
// Both are "method not found", so the client falls back to initialize at
// once, and the calls after them are answered.
func TestNewerProtocolRefused(t *testing.T) {
	replies := exchange(t, Config{Store: todostore.Open(t.TempDir()), Cwd: "/src", Version: "7"}, "h",
		`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}`,
		`{"jsonrpc":"2.0","id":2,"method":"subscriptions/listen","params":{}}`,
		`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"ping"}`)
	want := []string{
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,`,
		`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,`,
		`{"jsonrpc":"2.0","id":3,"result":{"capabilities"`,
		`{"jsonrpc":"2.0","id":4,"result":{}}`,
	}
	if len(replies) != len(want) {
		t.Fatalf("replies %q, want %d", replies, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(replies[i], w) {
			t.Errorf("reply %d: %s, want %s…", i, replies[i], w)
		}
	}
}

// FuzzHandle: after the handshake, any frame gets no reply or exactly one
// JSON-RPC reply with the frame's id, a result or an error; nothing
// panics and the session goes on (a ping after it is answered).
func FuzzHandle(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"todo_read","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"todo_write","arguments":{"todos":[{"content":"x","status":"pending"}]}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"todo_tick","arguments":{"id":"1.1"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2024-11-05"}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"todo_pause","arguments":[]}}`,
	} {
		f.Add([]byte(s))
	}
	st := todostore.Open(f.TempDir())
	hello := `{"jsonrpc":"2.0","id":"hello","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}`
	after := `{"jsonrpc":"2.0","id":"after","method":"ping"}`
	f.Fuzz(func(t *testing.T, frame []byte) {
		if bytes.ContainsAny(frame, "\n\r") {
			return // one frame is one line
		}
		m, fe := CheckFrame(frame)
		replies := exchange(t, Config{Store: st, Cwd: "/src"}, "f", hello, string(frame), after)
		var ids []string
		for _, line := range replies {
			var r struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Result  json.RawMessage `json:"result"`
				Error   *jsonrpc.Error  `json:"error"`
			}
			if err := json.Unmarshal([]byte(line), &r); err != nil || r.JSONRPC != "2.0" || (r.Result == nil) == (r.Error == nil) {
				t.Fatalf("%q: reply %q (%v)", frame, line, err)
			}
			ids = append(ids, idValue(r.ID))
		}
		want := []string{`"hello"`, `"after"`}
		switch {
		case fe != nil && len(bytes.TrimSpace(frame)) > 0:
			want = []string{`"hello"`, idValue(fe.ID), `"after"`}
		case fe == nil && m.IsCall():
			want = []string{`"hello"`, idValue(m.ID), `"after"`}
		}
		// A bad frame is answered as it is read, maybe before the call
		// in hand: replies to different ids may come in any order.
		slices.Sort(ids)
		slices.Sort(want)
		if !slices.Equal(ids, want) {
			t.Fatalf("%q: replies to %v, want %v:\n%s", frame, ids, want, strings.Join(replies, ""))
		}
	})
}

// idValue is a request id by its value, as JSON-RPC compares them ("\u0061"
// is "a"); null for none.
func idValue(raw json.RawMessage) string {
	if raw == nil {
		return "null"
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return "bad id " + string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
