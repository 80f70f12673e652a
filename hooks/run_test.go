package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/continuation"
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
	// budget and sleep are Config's BudgetTokens and Sleep.
	budget int64
	sleep  func(time.Duration)
}

func newHarness(t testing.TB) *harness {
	return &harness{t: t, store: todostore.Open(t.TempDir()), env: map[string]string{}}
}

func (h *harness) run(agentName string, k Kind, input string) (stdout, stderr string) {
	stdout, stderr, rc := h.runRC(agentName, k, input)
	if rc != 0 {
		h.t.Fatalf("exit %d", rc)
	}
	return stdout, stderr
}

func (h *harness) runRC(agentName string, k Kind, input string) (stdout, stderr string, rc int) {
	var out, errb bytes.Buffer
	cfg := Config{Store: h.store, Getenv: func(k string) string { return h.env[k] }, BudgetTokens: h.budget, Sleep: h.sleep}
	rc = Run(cfg, agentName, string(k), strings.NewReader(input), &out, &errb)
	return out.String(), errb.String(), rc
}

// TestRunStoreUnusable: a hook that cannot use the store says so in one
// stderr line the agent shows (exit 1, never 2, which would block), with
// nothing on stdout.
func TestRunStoreUnusable(t *testing.T) {
	for _, a := range Agents() {
		h := newHarness(t)
		file := filepath.Join(t.TempDir(), "not-a-dir")
		os.WriteFile(file, []byte("x"), 0o644)
		h.store = todostore.Open(filepath.Join(file, "store"))
		name, in := toolInput[a.Name]([2]string{"one", "pending"})
		for _, k := range []Kind{KindTool, KindStop} {
			out, errs, rc := h.runRC(a.Name, k, hookInput(a, k, map[string]any{"tool_name": name, "tool_input": json.RawMessage(in)}))
			if rc != ExitStoreUnusable || out != "" || strings.Count(errs, "\n") != 1 ||
				!strings.Contains(errs, "todosh cannot use its store, the list is not kept") || !strings.Contains(errs, "run todosh hooks status") {
				t.Errorf("%s %s: rc %d stdout %q stderr %q", a.Name, k, rc, out, errs)
			}
		}
	}
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

// continued is what a continuation answer m gives the agent and what the
// person sees of it, for a's way of continuing (continue.go); agentGets is
// "" when m does not continue. The agents that run the prompt hook for the
// continuation (Gemini CLI, Qwen Code) are run it, as they would.
func (h *harness) continued(a Agent, m map[string]any) (agentGets, personSees string) {
	str := func(k string) string { v, _ := m[k].(string); return v }
	if hs, ok := m["hookSpecificOutput"].(map[string]any); ok {
		ev, _ := a.Event(KindStop)
		if hs["hookEventName"] != ev.Name {
			h.t.Fatalf("stop context for event %v", hs["hookEventName"])
		}
		ctx, _ := hs["additionalContext"].(string)
		return ctx, str("systemMessage")
	}
	if str("decision") != a.Continue {
		return "", str("systemMessage")
	}
	agentGets, personSees = str("reason"), str("reason")
	if sm := str("systemMessage"); sm != "" {
		personSees = sm
	}
	if a.Name == "gemini" || a.Name == "qwen" {
		out, errs := h.run(a.Name, KindPrompt, hookInput(a, KindPrompt, map[string]any{"prompt": str("reason")}))
		if errs != "" {
			h.t.Fatalf("prompt hook for the continuation: %s", errs)
		}
		if out != "" {
			var ctx struct {
				H struct {
					Context string `json:"additionalContext"`
				} `json:"hookSpecificOutput"`
			}
			if err := json.Unmarshal([]byte(out), &ctx); err != nil {
				h.t.Fatalf("prompt output %q: %v", out, err)
			}
			agentGets += "\n" + ctx.H.Context
		}
	}
	return agentGets, personSees
}

func (h *harness) stop(a Agent, reply string) map[string]any {
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
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		h.t.Fatalf("stop output %q: %v", out, err)
	}
	return m
}

// shellTools is each agent's tool that runs a command, as its hook names it.
var shellTools = map[string]string{"claude": "Bash", "codex": "Bash", "gemini": "run_shell_command", "qwen": "run_shell_command"}

// command runs the tool hook for a command the agent ran and that
// succeeded.
func (h *harness) command(a Agent, cmd string) {
	h.t.Helper()
	in, _ := json.Marshal(map[string]string{"command": cmd})
	if out, errs := h.run(a.Name, KindTool, hookInput(a, KindTool, map[string]any{"tool_name": shellTools[a.Name],
		"tool_input": json.RawMessage(in), "tool_response": map[string]any{"stdout": "ok"}})); out != "" || errs != "" {
		h.t.Fatalf("tool hook for a command: %q %q", out, errs)
	}
}

// TestRunEveryAgent drives each agent's four hooks in-process as the agent
// would: the mirror, the gate to exactly 3 continuations, the person's
// prompt, the person's edit given back, and the start context.
func TestRunEveryAgent(t *testing.T) {
	for _, a := range Agents() {
		t.Run(a.Name, func(t *testing.T) {
			h := newHarness(t)
			h.env["AI_AGENT"] = "claude-code_2-1-332_harness" // what Claude Code 2.1.332 gives its hooks
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
				// The agent gets the instructions and the list; the person
				// sees one line that says who continues and why. (The
				// agents that run the prompt hook for the continuation do
				// not reset the counters: the fourth stop below.)
				gets, sees := h.continued(a, m)
				if !strings.Contains(gets, "<todo-list>") || !strings.Contains(gets, "You stopped") && i == 1 {
					t.Fatalf("stop %d: the agent gets %q (%v)", i, gets, m)
				}
				line := fmt.Sprintf("todosh: continuing %d/3 — 2 open items, 1 item done without a receipt", i)
				if !strings.HasPrefix(sees, line) || a.continueBy != byReason && sees != line {
					t.Fatalf("stop %d: the person sees %q, want %q (%v)", i, sees, line, m)
				}
			}
			if m := h.stop(a, "I will stop here."); m["systemMessage"] != "todosh: stopped: 3 attempts without progress" {
				t.Fatalf("fourth stop: %v", m)
			}
			// The person edits the list in todosh, then sends a prompt.
			if _, err := h.store.Update(a.Name+"-sess-1", func(s *todostore.Session) error {
				s.Todos = append(s.Todos, todolist.Todo{Content: "four", Status: todolist.Pending, Origin: todolist.OriginPerson})
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
			if gets, _ := h.continued(a, h.stop(a, "stopping")); gets == "" {
				t.Fatalf("stop after the person's prompt did not continue")
			}
			// Marked done without working: no receipt, the gate blocks and
			// names the items (issue 26).
			h.tool(a, [2]string{"one", "completed"}, [2]string{"two", "completed"}, [2]string{"three", "completed"}, [2]string{"four", "completed"})
			if gets, _ := h.continued(a, h.stop(a, "All done.")); !strings.Contains(gets, "Items 2, 3, 4 are marked completed, but todosh saw no") {
				t.Fatalf("stop when marked done without work: the agent gets %q", gets)
			}
			// Progress: the agent works each item, then finishes; the gate
			// lets it go.
			h.tool(a, [2]string{"one", "completed"}, [2]string{"two", "in_progress"}, [2]string{"three", "pending"}, [2]string{"four", "pending"})
			h.command(a, "go test ./...")
			h.tool(a, [2]string{"one", "completed"}, [2]string{"two", "completed"}, [2]string{"three", "in_progress"}, [2]string{"four", "pending"})
			h.command(a, "go vet ./...")
			h.tool(a, [2]string{"one", "completed"}, [2]string{"two", "completed"}, [2]string{"three", "completed"}, [2]string{"four", "in_progress"})
			h.command(a, "make docs")
			h.tool(a, [2]string{"one", "completed"}, [2]string{"two", "completed"}, [2]string{"three", "completed"}, [2]string{"four", "completed"})
			if m := h.stop(a, "All done."); m["systemMessage"] != "todosh: all done" {
				t.Fatalf("stop when done: %v", m)
			}
			// A question is never blocked.
			h.tool(a, [2]string{"five", "pending"})
			if m := h.stop(a, "Should I use Postgres or SQLite?"); m["decision"] != nil || m["hookSpecificOutput"] != nil {
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

// TestPersonItemReachesAgent: an item the person adds in todosh is not the
// agent's work until it was offered to it: a stop before that is not held
// for it; the person's next prompt offers it to be added with the agent's
// own tool (by position, never confused with the tool's ids), the gate then
// counts it, the continuation offers it again until the agent's tool holds
// it, and then no more.
func TestPersonItemReachesAgent(t *testing.T) {
	for _, a := range Agents() {
		t.Run(a.Name, func(t *testing.T) {
			h := newHarness(t)
			h.env["AI_AGENT"] = "claude-code_2-1-332_harness"
			done := [][2]string{{"one", "completed"}, {"two", "completed"}, {"three", "completed"}}
			// A list new to the session written done in one go, with no
			// work seen: done without a receipt, named, continued, and
			// stopped after 3 continuations without progress.
			h.tool(a, done...)
			for i := 1; i <= continuation.MaxNoProgress; i++ {
				gets, sees := h.continued(a, h.stop(a, "All done."))
				if !strings.Contains(gets, "Items 1, 2, 3 are marked completed, but todosh saw no successful edit or command") ||
					!strings.Contains(sees, fmt.Sprintf("continuing %d/3 — 3 items done without a receipt", i)) {
					t.Fatalf("stop %d of a list written done: %q %q", i, gets, sees)
				}
			}
			if m := h.stop(a, "All done."); m["systemMessage"] != "todosh: stopped: 3 attempts without progress" {
				t.Fatalf("no stop at the cap: %v", m)
			}
			// The person clears the list and prompts; the agent's tool
			// re-sends its finished items (Claude Code's TodoWrite does):
			// finished work the session had, not counted.
			if _, err := h.store.Update(a.Name+"-sess-1", func(s *todostore.Session) error {
				s.ArchiveTodos("cleared")
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			h.run(a.Name, KindPrompt, hookInput(a, KindPrompt, map[string]any{"prompt": "thanks"}))
			h.tool(a, done...)
			if m := h.stop(a, "All done."); m != nil {
				t.Fatalf("stop when a finished list is re-sent: %v", m)
			}
			if _, err := h.store.Update(a.Name+"-sess-1", func(s *todostore.Session) error {
				s.Todos = append(s.Todos, todolist.Todo{Content: "write the README", Status: todolist.Pending, Origin: todolist.OriginPerson})
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			// The agent stops before it was told: not held for it.
			m := h.stop(a, "Anything else?.")
			if gets, _ := h.continued(a, m); gets != "" || m["systemMessage"] != "todosh: the agent gets your 1 new item with your next prompt" {
				t.Fatalf("a stop before the item was offered: %v", m)
			}
			tool, _ := toolInput[a.Name]()
			out, _ := h.run(a.Name, KindPrompt, hookInput(a, KindPrompt, map[string]any{"prompt": "what is left?"}))
			want := "Item 4 of the list below is not in your own todo list yet"
			if !strings.Contains(out, want) || !strings.Contains(out, "with "+tool) || !strings.Contains(out, "not ids of your tool") {
				t.Fatalf("the prompt does not offer the item to add with %s: %s", tool, out)
			}
			// Offered, it is the agent's work: the stop continues, and the
			// continuation says to add it, not to update an item the
			// agent's tool does not have.
			gets, _ := h.continued(a, h.stop(a, "Nothing left."))
			if !strings.Contains(gets, want) || !strings.Contains(gets, `"write the README"`) {
				t.Fatalf("the continuation after the offer: %q", gets)
			}
			// The agent adds it with its own tool: held, no longer offered.
			h.tool(a, append(done, [2]string{"write the README", "in_progress"})...)
			gets, _ = h.continued(a, h.stop(a, "Working on it."))
			if gets == "" || strings.Contains(gets, "not in your own todo list") {
				t.Fatalf("the continuation once the agent holds the item: %q", gets)
			}
		})
	}
}

// TestPersonItemClaudeTasks: with Claude Code's Task tools the item is
// offered to add with TaskCreate, and is held once a task has its text.
func TestPersonItemClaudeTasks(t *testing.T) {
	claude, _ := Lookup("claude")
	h := newHarness(t)
	h.env["AI_AGENT"] = "claude-code_2-1-332_harness"
	create := func(id, subject string) {
		out, errs := h.run("claude", KindTool, hookInput(claude, KindTool, map[string]any{"tool_name": "TaskCreate",
			"tool_input": map[string]any{"subject": subject}, "tool_response": map[string]any{"task": map[string]any{"id": id, "subject": subject}}}))
		if out != "" || errs != "" {
			t.Fatalf("TaskCreate hook: %q %q", out, errs)
		}
	}
	create("1", "one")
	if _, err := h.store.Update("claude-sess-1", func(s *todostore.Session) error {
		s.Todos = append(s.Todos, todolist.Todo{Content: "write the README", Status: todolist.Pending, Origin: todolist.OriginPerson})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	out, _ := h.run("claude", KindPrompt, hookInput(claude, KindPrompt, map[string]any{"prompt": "go on"}))
	if !strings.Contains(out, "Item 2 of the list below is not in your own todo list yet") || !strings.Contains(out, "add it with TaskCreate") {
		t.Fatalf("prompt output %s", out)
	}
	create("2", "write the README")
	gets, _ := h.continued(claude, h.stop(claude, "ok"))
	if gets == "" || strings.Contains(gets, "not in your own todo list") || !strings.Contains(gets, "TaskUpdate") {
		t.Fatalf("continuation once the task exists: %q", gets)
	}
}

// TestSubagentStop: a sub-agent's stop is never held for the session's
// list, whatever is open.
func TestSubagentStop(t *testing.T) {
	for _, a := range Agents() {
		h := newHarness(t)
		h.tool(a, [2]string{"one", "pending"})
		key := "last_assistant_message"
		if a.Name == "gemini" {
			key = "prompt_response"
		}
		out, errs := h.run(a.Name, KindStop, hookInput(a, KindStop, map[string]any{key: "sub-agent done", "agent_id": "sub-1", "agent_type": "Explore"}))
		if out != "" || errs != "" {
			t.Fatalf("%s: a sub-agent's stop: %q %q", a.Name, out, errs)
		}
		if s, _ := h.store.Load(a.Name + "-sess-1"); s.Hooks != nil && s.Hooks.PerPrompt != 0 {
			t.Fatalf("%s: a sub-agent's stop counted: %+v", a.Name, s.Hooks)
		}
	}
}
