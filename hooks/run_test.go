package hooks

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/internal/benchcpu"
	"github.com/todosh/todosh/internal/testenv"
	"github.com/todosh/todosh/todostore"
)

// toolInput is each agent's todo tool input for a list of (text, status).
var toolInput = map[string]func(items ...[2]string) (string, string){
	"claude": func(items ...[2]string) (string, string) {
		var t []map[string]string
		for _, it := range items {
			t = append(t, map[string]string{"content": it[0], "status": it[1], "activeForm": it[0] + "ing"})
		}
		b, _ := json.Marshal(map[string]any{"todos": t})
		return "TodoWrite", string(b)
	},
	"qwen": func(items ...[2]string) (string, string) {
		var t []map[string]string
		for i, it := range items {
			t = append(t, map[string]string{"id": string(rune('1' + i)), "content": it[0], "status": it[1]})
		}
		b, _ := json.Marshal(map[string]any{"todos": t})
		return "todo_write", string(b)
	},
	"gemini": func(items ...[2]string) (string, string) {
		var t []map[string]string
		for _, it := range items {
			t = append(t, map[string]string{"description": it[0], "status": it[1]})
		}
		b, _ := json.Marshal(map[string]any{"todos": t})
		return "write_todos", string(b)
	},
	"codex": func(items ...[2]string) (string, string) {
		var t []map[string]string
		for _, it := range items {
			t = append(t, map[string]string{"step": it[0], "status": it[1]})
		}
		b, _ := json.Marshal(map[string]any{"explanation": "plan", "plan": t})
		return "update_plan", string(b)
	},
}

type harness struct {
	t     testing.TB
	store *todostore.Store
	env   map[string]string
}

func newHarness(t testing.TB) *harness {
	return &harness{t: t, store: todostore.Open(t.TempDir()), env: map[string]string{}}
}

func (h *harness) run(agentName string, k Kind, input string) (stdout, stderr string) {
	var out, errb bytes.Buffer
	cfg := Config{Store: h.store, Getenv: func(k string) string { return h.env[k] }}
	if rc := Run(cfg, agentName, string(k), strings.NewReader(input), &out, &errb); rc != 0 {
		h.t.Fatalf("exit %d", rc)
	}
	return out.String(), errb.String()
}

func hookInput(a Agent, k Kind, fields map[string]any) string {
	ev, _ := a.Event(k)
	m := map[string]any{"session_id": "sess-1", "cwd": "/w", "hook_event_name": ev.Name, "transcript_path": "/t.jsonl"}
	for k, v := range fields {
		m[k] = v
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func (h *harness) tool(a Agent, items ...[2]string) {
	name, in := toolInput[a.Name](items...)
	out, errs := h.run(a.Name, KindTool, hookInput(a, KindTool, map[string]any{"tool_name": name, "tool_input": json.RawMessage(in), "tool_response": map[string]any{}}))
	if out != "" || errs != "" {
		h.t.Fatalf("tool hook: stdout %q stderr %q", out, errs)
	}
}

func (h *harness) stop(a Agent, reply string) map[string]string {
	key := "last_assistant_message"
	if a.Name == "gemini" {
		key = "prompt_response"
	}
	out, errs := h.run(a.Name, KindStop, hookInput(a, KindStop, map[string]any{key: reply, "stop_hook_active": false}))
	if errs != "" {
		h.t.Fatalf("stop hook stderr %q", errs)
	}
	if out == "" {
		return nil
	}
	var m map[string]string
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		h.t.Fatalf("stop output %q: %v", out, err)
	}
	return m
}

// TestRunEveryAgent drives each agent's four hooks in-process as the agent
// would: the mirror, the gate to exactly 3 continuations, the person's
// prompt, the person's edit given back, and the start context.
func TestRunEveryAgent(t *testing.T) {
	for _, a := range Agents() {
		t.Run(a.Name, func(t *testing.T) {
			h := newHarness(t)
			// No session yet: the gate lets the agent stop and writes nothing.
			if m := h.stop(a, "hi"); m != nil {
				t.Fatalf("stop without a list: %v", m)
			}
			if entries, _ := h.store.List(); len(entries) != 0 {
				t.Fatalf("a stop without a list made a session")
			}
			h.tool(a, [2]string{"one", "completed"}, [2]string{"two", "in_progress"}, [2]string{"three", "pending"})
			sess, err := h.store.Load("" + a.Name + "-sess-1")
			if err != nil {
				t.Fatal(err)
			}
			if sess.Agent == nil || sess.Agent.Kind != a.Name || sess.Agent.Session != "sess-1" || sess.Cwd != "/w" || len(sess.Todos) != 3 {
				t.Fatalf("mirrored session %+v %+v", sess.Agent, sess.Todos)
			}
			for i := 1; i <= 3; i++ {
				m := h.stop(a, "I will stop here.")
				if m["decision"] != a.Continue || !strings.Contains(m["reason"], "<todo-list>") {
					t.Fatalf("stop %d: %v", i, m)
				}
				// The agents that run the prompt hook for the continuation
				// (Gemini CLI, Qwen Code) do not reset the counters.
				if out, _ := h.run(a.Name, KindPrompt, hookInput(a, KindPrompt, map[string]any{"prompt": m["reason"]})); out != "" {
					t.Fatalf("the continuation got context: %q", out)
				}
			}
			if m := h.stop(a, "I will stop here."); m["systemMessage"] != "todosh: stopped: 3 attempts without progress" {
				t.Fatalf("fourth stop: %v", m)
			}
			// The person edits the list in todosh, then sends a prompt.
			if _, err := h.store.Update(a.Name+"-sess-1", func(s *todostore.Session) error {
				s.Todos = append(s.Todos, todostore.Todo{Content: "four", Status: todostore.Pending, Origin: todostore.OriginPerson})
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			out, _ := h.run(a.Name, KindPrompt, hookInput(a, KindPrompt, map[string]any{"prompt": "keep going"}))
			ev, _ := a.Event(KindPrompt)
			var ctx struct {
				H struct {
					Name, Context string
				} `json:"hookSpecificOutput"`
			}
			if err := json.Unmarshal([]byte(out), &ctx); err != nil || !strings.Contains(out, `"hookEventName":"`+ev.Name+`"`) || !strings.Contains(out, `\"four\"`) {
				t.Fatalf("prompt output %q (%v)", out, err)
			}
			// The counters started again.
			if m := h.stop(a, "stopping"); m["decision"] != a.Continue {
				t.Fatalf("stop after the person's prompt: %v", m)
			}
			// Progress: the agent finishes everything; the gate lets it go.
			h.tool(a, [2]string{"one", "completed"}, [2]string{"two", "completed"}, [2]string{"three", "completed"}, [2]string{"four", "completed"})
			if m := h.stop(a, "All done."); m["systemMessage"] != "todosh: all done" {
				t.Fatalf("stop when done: %v", m)
			}
			// A question is never blocked.
			h.tool(a, [2]string{"five", "pending"})
			if m := h.stop(a, "Should I use Postgres or SQLite?"); m["decision"] != "" {
				t.Fatalf("a question was blocked: %v", m)
			}
			// A sub-agent's todo tool is not the session's list.
			name, in := toolInput[a.Name]([2]string{"sub", "pending"})
			h.run(a.Name, KindTool, hookInput(a, KindTool, map[string]any{"tool_name": name, "tool_input": json.RawMessage(in), "agent_id": "sub-1"}))
			if s, _ := h.store.Load(a.Name + "-sess-1"); len(s.Todos) != 2 || s.Todos[1].Content != "five" {
				t.Fatalf("a sub-agent's list was mirrored: %v", s.Todos)
			}
			// A resume or a compaction gives the list back.
			out, _ = h.run(a.Name, KindStart, hookInput(a, KindStart, map[string]any{"source": "compact"}))
			if !strings.Contains(out, "additionalContext") || !strings.Contains(out, `\"five\"`) {
				t.Fatalf("start output %q", out)
			}
		})
	}
}

// TestRunNeverInTheWay: inside todosh, switched off, bad input, a store
// that cannot be used, a held lock: exit 0, nothing on stdout, at most one
// line on stderr, nothing written.
func TestRunNeverInTheWay(t *testing.T) {
	claude, _ := Lookup("claude")
	good := hookInput(claude, KindStop, map[string]any{"last_assistant_message": "ok"})
	h := newHarness(t)
	h.tool(claude, [2]string{"one", "pending"})
	for _, tc := range []struct {
		name, agent, kind, input string
		env                      map[string]string
		wantErr                  string
	}{
		{"inside todosh", "claude", "stop", good, map[string]string{agent.SessionEnv: "x"}, ""},
		{"switched off", "claude", "stop", good, map[string]string{OffEnv: "off"}, ""},
		{"not json", "claude", "stop", "{", nil, "not the JSON object of a hook"},
		{"no session", "claude", "stop", `{"cwd":"/"}`, nil, "no session_id"},
		{"bad session", "claude", "stop", `{"session_id":"../../etc"}`, nil, "cannot name a session"},
		{"unknown agent", "cursor", "stop", good, nil, "unknown agent"},
		{"unknown event", "claude", "sleep", good, nil, "unknown hook event"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h.env = tc.env
			if h.env == nil {
				h.env = map[string]string{}
			}
			out, errs := h.run(tc.agent, Kind(tc.kind), tc.input)
			if out != "" {
				t.Errorf("stdout %q", out)
			}
			if tc.wantErr == "" && errs != "" || tc.wantErr != "" && (!strings.Contains(errs, tc.wantErr) || strings.Count(errs, "\n") != 1) {
				t.Errorf("stderr %q, want one line with %q", errs, tc.wantErr)
			}
		})
	}
	h.env = map[string]string{}
	// A held lock: the hook gives up after LockTimeout and lets the agent stop.
	if testing.Short() {
		return
	}
	lockDir := filepath.Join(h.store.Dir, ".locks")
	os.MkdirAll(lockDir, 0o700)
	f, err := os.OpenFile(filepath.Join(lockDir, "claude-sess-1.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := testenv.Lock(f); err != nil {
		t.Fatal(err)
	}
	out, errs := h.run("claude", KindStop, good)
	if out != "" || strings.Count(errs, "\n") != 1 {
		t.Errorf("with the lock held: stdout %q stderr %q", out, errs)
	}
}

// benchHarness is a harness whose session holds a list of 20 pending
// items, put there by Claude Code's tool hook, and those items.
func benchHarness(b *testing.B) (Agent, *harness, [][2]string) {
	claude, _ := Lookup("claude")
	h := newHarness(b)
	items := make([][2]string, 20)
	for i := range items {
		items[i] = [2]string{strings.Repeat("item ", 5) + string(rune('a'+i)), "pending"}
	}
	h.tool(claude, items...)
	return claude, h, items
}

// BenchmarkHookStop is one stop hook in-process on a session with a list
// of 20 items, continuing: read the input, load, decide, commit, encode.
func BenchmarkHookStop(b *testing.B) {
	claude, h, _ := benchHarness(b)
	stop := hookInput(claude, KindStop, map[string]any{"last_assistant_message": "I will stop here."})
	prompt := hookInput(claude, KindPrompt, map[string]any{"prompt": "go"})
	b.ResetTimer()
	defer benchcpu.PerOp(b)()
	for i := 0; i < b.N; i++ {
		if i%3 == 0 {
			h.run("claude", KindPrompt, prompt)
		}
		h.run("claude", KindStop, stop)
	}
}

// BenchmarkHookToolUnchanged is the tool hook when the agent rewrites the
// list it already has (the common case at every todo call): nothing is
// written.
func BenchmarkHookToolUnchanged(b *testing.B) {
	claude, h, items := benchHarness(b)
	b.ResetTimer()
	defer benchcpu.PerOp(b)()
	for i := 0; i < b.N; i++ {
		h.tool(claude, items...)
	}
}
