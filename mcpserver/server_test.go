package mcpserver

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/todosh/todosh/agent"
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

// TestInMemory serves one call over the SDK's in-memory transport: a
// refused call is a tool error, never a protocol error.
func TestInMemory(t *testing.T) {
	st := todostore.Open(t.TempDir())
	ct, stt := mcp.NewInMemoryTransports()
	ctx := context.Background()
	go New(Config{Store: st, Cwd: "/src/x"}, "s1").Run(ctx, stt)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "todo_tick", Arguments: map[string]any{"id": 7}})
	if err != nil || !res.IsError {
		t.Fatalf("bad tick: %v %+v", err, res)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "todo_write", Arguments: map[string]any{"todos": []map[string]any{{"content": "a", "status": "pending"}}}})
	if err != nil || res.IsError {
		t.Fatalf("write: %v %+v", err, res)
	}
	s, err := st.Load("s1")
	if err != nil || len(s.Todos) != 1 || s.Cwd != "/src/x" {
		t.Errorf("after todo_write: %+v %v (the cwd is recorded in a session without one)", s, err)
	}
}
