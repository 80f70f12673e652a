package clis

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/continuation"
	"github.com/todosh/todosh/todostore"
)

// fakeDir holds the fake CLI, built once, under the names claude, codex and
// gemini (it plays whichever it is called).
var fakeDir string

func TestMain(m *testing.M) {
	code := func() int {
		dir, err := os.MkdirTemp("", "fakecli")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
		if _, err := os.Stat(goBin); err != nil {
			goBin = "go"
		}
		bin := filepath.Join(dir, "fakecli")
		out, err := exec.Command(goBin, "build", "-o", bin, "./internal/fakecli").CombinedOutput()
		if err != nil {
			fmt.Fprintf(os.Stderr, "build fakecli: %v\n%s", err, out)
			return 1
		}
		for _, k := range Kinds {
			if err := os.Symlink(bin, filepath.Join(dir, k)); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
		}
		fakeDir = dir
		return m.Run()
	}()
	os.Exit(code)
}

// fakeRun is one fake CLI set up for a test: its store, its session and
// where it records its invocations.
type fakeRun struct {
	t      *testing.T
	kind   string
	store  *todostore.Store
	sess   agent.Session
	dir    string
	record string
	env    map[string]string
}

func newFakeRun(t *testing.T, kind string, env map[string]string) *fakeRun {
	t.Helper()
	root := t.TempDir()
	f := &fakeRun{t: t, kind: kind, store: todostore.Open(filepath.Join(root, "home")), dir: filepath.Join(root, "work"), record: filepath.Join(root, "record.jsonl"), env: env}
	if err := os.MkdirAll(f.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f.sess = agent.Session{Store: f.store, ID: "s1"}
	return f
}

// agent builds a fresh backend, as a restarted todosh would.
func (f *fakeRun) agent(cfg Config) agent.Agent {
	f.t.Helper()
	if cfg.Bin == "" {
		cfg.Bin = filepath.Join(fakeDir, f.kind)
	}
	cfg.Dir = f.dir
	env := append(os.Environ(), "FAKECLI_RECORD="+f.record)
	for k, v := range f.env {
		env = append(env, k+"="+v)
	}
	cfg.Env = env
	a, err := New(f.kind, cfg, f.sess)
	if err != nil {
		f.t.Fatal(err)
	}
	return a
}

// turn runs one turn and returns its events.
func (f *fakeRun) turn(a agent.Agent, turn agent.Turn) ([]agent.Event, agent.Result, error) {
	var evs []agent.Event
	res, err := a.RunTurn(context.Background(), turn, func(e agent.Event) { evs = append(evs, e) })
	return evs, res, err
}

// turnFrom puts todos on disk, runs one turn that must succeed, and
// returns the session after it.
func (f *fakeRun) turnFrom(todos []todostore.Todo) *todostore.Session {
	f.t.Helper()
	if _, err := f.sess.Update(func(s *todostore.Session) error {
		s.Todos = todos
		return nil
	}); err != nil {
		f.t.Fatal(err)
	}
	if _, _, err := f.turn(f.agent(Config{}), agent.Turn{Prompt: "go"}); err != nil {
		f.t.Fatal(err)
	}
	return f.load()
}

func (f *fakeRun) load() *todostore.Session {
	f.t.Helper()
	s, err := f.store.LoadOrNew("s1")
	if err != nil {
		f.t.Fatal(err)
	}
	return s
}

// invocation is one line the fake recorded.
type invocation struct {
	Argv      []string `json:"argv"`
	Resume    string   `json:"resume"`
	StdinNull bool     `json:"stdinNull"`
	Dir       string   `json:"dir"`
}

func (f *fakeRun) invocations() []invocation {
	f.t.Helper()
	file, err := os.Open(f.record)
	if err != nil {
		f.t.Fatal(err)
	}
	defer file.Close()
	var out []invocation
	sc := bufio.NewScanner(file)
	for sc.Scan() {
		var inv invocation
		if err := json.Unmarshal(sc.Bytes(), &inv); err != nil {
			f.t.Fatal(err)
		}
		out = append(out, inv)
	}
	return out
}

func transcript(parts ...string) string {
	p, err := filepath.Abs(filepath.Join(append([]string{"testdata"}, parts...)...))
	if err != nil {
		panic(err)
	}
	return p
}

func statuses(todos []todostore.Todo) string {
	var b []string
	for _, t := range todos {
		b = append(b, string(t.Status))
	}
	return strings.Join(b, ",")
}

func countKind(evs []agent.Event, k agent.EventKind) int {
	n := 0
	for _, e := range evs {
		if e.Kind == k {
			n++
		}
	}
	return n
}

// TestEndToEnd wraps each fake CLI: a first turn that ends lazily with
// items open, then a continuation by a restarted todosh that resumes the
// right session and completes the list, with an item the person added in
// between kept.
func TestEndToEnd(t *testing.T) {
	cases := []struct {
		kind, folder, run1, resume, session string
		afterRun1                           string
		tool1, tool2                        string
		// legacyTasks moves the task ids, after turn 1, to the side file
		// an older todosh kept them in.
		legacyTasks bool
	}{
		{"claude", "claude-todowrite", "claude-run1.jsonl", "claude-resume.jsonl", "f3b303c4-9b82-483f-a4f8-445bb003551f", "completed,in_progress,pending", "TodoWrite", "TodoWrite", false},
		{"claude", "claude-tasks", "claude-run1.jsonl", "", "12ec3832-a7d8-4254-b780-88c4e469102c", "completed,in_progress,pending", "TaskUpdate", "TaskUpdate", false},
		{"claude", "claude-tasks", "claude-run1.jsonl", "", "12ec3832-a7d8-4254-b780-88c4e469102c", "completed,in_progress,pending", "TaskUpdate", "TaskUpdate", true},
		{"codex", "codex", "codex-run1.jsonl", "codex-resume-id.jsonl", "01a20041-b822-7443-827f-46d87d803854", "completed,pending,pending", "update_plan", "update_plan", false},
		{"gemini", "gemini", "gemini-run1.jsonl", "gemini-resume-id.jsonl", "efe60ada-73d8-4b4e-a1d6-8e2ddc259f66", "completed,in_progress,pending", "write_todos", "write_todos", false},
	}
	for _, c := range cases {
		t.Run(c.folder, func(t *testing.T) {
			resume := transcript("transcripts", c.folder, c.resume)
			if c.resume == "" {
				resume = transcript("fake", "claude-tasks-resume.jsonl")
			}
			f := newFakeRun(t, c.kind, map[string]string{
				"FAKECLI_RUN1":    transcript("transcripts", c.folder, c.run1),
				"FAKECLI_RESUME":  resume,
				"FAKECLI_SESSION": c.session,
			})
			a := f.agent(Config{Args: []string{"--model", "m1"}})
			evs, res, err := f.turn(a, agent.Turn{Prompt: "Plan and start building csvkit-lite"})
			if err != nil {
				t.Fatalf("turn 1: %v", err)
			}
			if res.FinalText != "I've set up the project skeleton and started on the parser. I'll stop here for now." || res.Paused {
				t.Errorf("turn 1 result %+v", res)
			}
			s := f.load()
			if got := statuses(s.Todos); got != c.afterRun1 {
				t.Fatalf("after turn 1: %s\n%s", got, todostore.FormatList(s.Todos))
			}
			if s.Agent == nil || s.Agent.Kind != c.kind || s.Agent.Session != c.session {
				t.Fatalf("agent ref %+v", s.Agent)
			}
			// The list is shown once per real change, never twice the same.
			var last string
			for _, e := range evs {
				if e.Kind == agent.EventTodos {
					if txt := todostore.FormatList(e.Todos); txt == last {
						t.Errorf("same list shown twice:\n%s", txt)
					} else {
						last = txt
					}
				}
			}
			if last != todostore.FormatList(s.Todos) {
				t.Errorf("last list shown is not the list on disk")
			}
			if a.TodoTool() != c.tool1 {
				t.Errorf("TodoTool %q, want %q", a.TodoTool(), c.tool1)
			}

			// The person adds an item; todosh restarts; the continuation
			// resumes the CLI's session.
			if _, err := f.sess.Update(func(s *todostore.Session) error {
				var err error
				s.Todos, err = todostore.InsertTodo(s.Todos, len(s.Todos), todostore.Todo{Content: "Write the README", Origin: todostore.OriginPerson})
				if c.legacyTasks {
					data, _ := json.Marshal(ClaudeTasks{Session: s.Agent.Session, Tasks: s.Agent.Tasks})
					os.WriteFile(filepath.Join(f.store.Dir, ".todo-"+f.sess.ID+".claude-tasks.json"), data, 0o644)
					s.Agent.Tasks = nil
				}
				return err
			}); err != nil {
				t.Fatal(err)
			}
			a = f.agent(Config{Args: []string{"--model", "m1"}})
			ctxText := continuation.TodoContext(f.load().Todos)
			if _, res, err = f.turn(a, agent.Turn{Prompt: "Continue: 2 items are open.", Continuation: true, TodoContext: ctxText}); err != nil {
				t.Fatalf("turn 2: %v", err)
			}
			if res.FinalText != "All three tasks are complete." {
				t.Errorf("turn 2 final text %q", res.FinalText)
			}
			s = f.load()
			if got := statuses(s.Todos); got != "completed,completed,completed,pending" || s.Todos[3].Content != "Write the README" || s.Todos[3].Origin != todostore.OriginPerson {
				t.Fatalf("after turn 2:\n%s", todostore.FormatList(s.Todos))
			}
			if a.TodoTool() != c.tool2 {
				t.Errorf("TodoTool after turn 2 %q, want %q", a.TodoTool(), c.tool2)
			}
			inv := f.invocations()
			if len(inv) != 2 || inv[0].Resume != "" || inv[1].Resume != c.session {
				t.Fatalf("invocations %+v, want a new session then a resume of %s", inv, c.session)
			}
			checkArgv(t, c.kind, inv[1], ctxText)
		})
	}
}

// checkArgv checks the command line of a resumed turn with todo context.
func checkArgv(t *testing.T, kind string, inv invocation, ctxText string) {
	t.Helper()
	argv := strings.Join(inv.Argv, "\x00")
	has := func(seq ...string) bool { return strings.Contains(argv, strings.Join(seq, "\x00")) }
	switch kind {
	case "claude":
		if inv.Argv[0] != "-p" || !has("--output-format", "stream-json", "--verbose") || !has("--resume", inv.Resume) || !has("--model", "m1") {
			t.Errorf("claude argv %q", inv.Argv)
		}
		if !has("--append-system-prompt", ctxText) || !has("-p", "Continue: 2 items are open.") {
			t.Errorf("claude got no todo context: %q", inv.Argv)
		}
	case "codex":
		if !has("exec", "--json", "-c", "tools.update_plan.enabled=true", "--skip-git-repo-check", "--model", "m1", "resume", inv.Resume) {
			t.Errorf("codex argv %q", inv.Argv)
		}
		if !inv.StdinNull {
			t.Error("codex stdin is not /dev/null")
		}
		if p := inv.Argv[len(inv.Argv)-1]; p != strings.TrimRight(ctxText, "\n")+"\n\nContinue: 2 items are open." {
			t.Errorf("codex prompt %q", p)
		}
	case "gemini":
		if inv.Argv[0] != "-p" || !has("--output-format", "stream-json") || !has("--resume", inv.Resume) || !has("--model", "m1") {
			t.Errorf("gemini argv %q", inv.Argv)
		}
		if !strings.HasPrefix(inv.Argv[1], ctxText) || !strings.Contains(inv.Argv[1], "<todo-list>") {
			t.Errorf("gemini prompt has no todo context: %q", inv.Argv[1])
		}
	}
}

func TestOtherKindStartsNewSession(t *testing.T) {
	f := newFakeRun(t, "gemini", map[string]string{
		"FAKECLI_RUN1": transcript("transcripts", "gemini", "gemini-run1.jsonl"),
	})
	if _, err := f.sess.Update(func(s *todostore.Session) error {
		s.Agent = &todostore.AgentRef{Kind: "codex", Session: "old-thread"}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	evs, _, err := f.turn(f.agent(Config{}), agent.Turn{Prompt: "go"})
	if err != nil {
		t.Fatal(err)
	}
	if inv := f.invocations(); inv[0].Resume != "" {
		t.Errorf("resumed %q of another CLI", inv[0].Resume)
	}
	if evs[0].Kind != agent.EventNotice || !strings.Contains(evs[0].Text, "codex") {
		t.Errorf("first event %+v, want a notice about the switch", evs[0])
	}
	if s := f.load(); s.Agent.Kind != "gemini" {
		t.Errorf("agent ref %+v", s.Agent)
	}
}

func TestGitRepoCheck(t *testing.T) {
	f := newFakeRun(t, "codex", map[string]string{"FAKECLI_RUN1": transcript("transcripts", "codex", "codex-run1.jsonl")})
	if err := os.Mkdir(filepath.Join(f.dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(f.dir, "pkg")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	f.dir = sub
	if _, _, err := f.turn(f.agent(Config{}), agent.Turn{Prompt: "go"}); err != nil {
		t.Fatal(err)
	}
	inv := f.invocations()[0]
	if strings.Contains(strings.Join(inv.Argv, " "), "--skip-git-repo-check") {
		t.Errorf("inside a git repository: %q", inv.Argv)
	}
	if inv.Dir != sub {
		t.Errorf("ran in %s, want %s", inv.Dir, sub)
	}
}

// seedList puts a list on disk so failure tests can check it is untouched.
func seedList(t *testing.T, f *fakeRun) []byte {
	t.Helper()
	if _, err := f.sess.Update(func(s *todostore.Session) error {
		s.Todos = []todostore.Todo{{Content: "keep me", Status: todostore.InProgress}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(f.store.Path("s1"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func writeStream(t *testing.T, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "stream.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFailures(t *testing.T) {
	cases := []struct {
		name, kind string
		env        map[string]string
		bin        string
		want       string
	}{
		{"missing executable", "claude", nil, "/nonexistent/bin/claude", "claude: /nonexistent/bin/claude not found (install it, or name it with --agent-bin PATH)"},
		{"missing on PATH", "codex", nil, "no-such-cli-todosh-test", "codex: no-such-cli-todosh-test not found"},
		{"non-zero exit with stderr", "claude", map[string]string{"FAKECLI_MODE": "fail", "FAKECLI_STDERR": "warming up\nError: Invalid API key · Please run /login\n\n"}, "", "claude: exit status 3: Error: Invalid API key · Please run /login"},
		{"non-zero exit without stderr", "gemini", map[string]string{"FAKECLI_MODE": "fail"}, "", "gemini: exit status 3"},
		{"error event", "claude", map[string]string{"FAKECLI_RUN1": ""}, "", "claude: API Error: 529 overloaded"},
		{"codex turn failed", "codex", map[string]string{"FAKECLI_RUN1": ""}, "", "codex: stream disconnected before completion"},
		{"resume of an unknown session", "gemini", map[string]string{"FAKECLI_SESSION": "other"}, "", "gemini: exit status 1: No conversation found with session ID: efe60ada"},
	}
	streams := map[string]string{
		"error event": writeStream(t,
			`{"type":"system","subtype":"init","session_id":"e1","tools":["TodoWrite"]}`,
			`{"type":"assistant","message":{"content":[{"type":"text","text":"trying"}]},"parent_tool_use_id":null}`,
			`{"type":"result","subtype":"success","is_error":true,"result":"API Error: 529 overloaded","session_id":"e1"}`),
		"codex turn failed": writeStream(t,
			`{"type":"thread.started","thread_id":"t1"}`,
			`{"type":"error","message":"Reconnecting... 1/5"}`,
			`{"type":"turn.failed","error":{"message":"stream disconnected before completion"}}`),
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := map[string]string{}
			for k, v := range c.env {
				env[k] = v
			}
			if s, ok := streams[c.name]; ok {
				env["FAKECLI_RUN1"] = s
			}
			f := newFakeRun(t, c.kind, env)
			before := seedList(t, f)
			if c.name == "resume of an unknown session" {
				if _, err := f.sess.Update(func(s *todostore.Session) error {
					s.Agent = &todostore.AgentRef{Kind: "gemini", Session: "efe60ada"}
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				before, _ = os.ReadFile(f.store.Path("s1"))
			}
			_, _, err := f.turn(f.agent(Config{Bin: c.bin}), agent.Turn{Prompt: "go"})
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
			after, _ := os.ReadFile(f.store.Path("s1"))
			if c.name != "error event" && c.name != "codex turn failed" && string(after) != string(before) {
				t.Errorf("the list changed:\n%s", after)
			}
			if s := f.load(); len(s.Todos) != 1 || s.Todos[0].Content != "keep me" {
				t.Errorf("list %v", s.Todos)
			}
		})
	}
}

// TestCancelKillsProcessGroup cancels a turn whose CLI sleeps with a child
// in its process group; RunTurn returns the context's error only when the
// whole group is gone, also when they ignore SIGTERM.
func TestCancelKillsProcessGroup(t *testing.T) {
	for _, ignoreTerm := range []string{"0", "1"} {
		t.Run("ignore_term="+ignoreTerm, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "pids")
			f := newFakeRun(t, "claude", map[string]string{"FAKECLI_MODE": "sleep", "FAKECLI_PIDFILE": pidFile, "FAKECLI_IGNORE_TERM": ignoreTerm})
			seedList(t, f)
			a := f.agent(Config{KillGrace: 300 * time.Millisecond})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var pid, child int
			go func() {
				for {
					if data, err := os.ReadFile(pidFile); err == nil {
						fmt.Sscan(string(data), &pid, &child)
						cancel()
						return
					}
					time.Sleep(5 * time.Millisecond)
				}
			}()
			done := make(chan error, 1)
			go func() {
				_, err := a.RunTurn(ctx, agent.Turn{Prompt: "sleep"}, func(agent.Event) {})
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("RunTurn did not return after cancellation")
			}
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v, want context.Canceled", err)
			}
			if pid == 0 {
				t.Fatal("the fake never started")
			}
			if groupAlive(pid) {
				t.Errorf("process group %d still running", pid)
			}
			// Dead members may wait a moment for init to reap them.
			for i := 0; syscall.Kill(-pid, 0) != syscall.ESRCH || syscall.Kill(child, 0) != syscall.ESRCH; i++ {
				if i == 1000 {
					t.Fatalf("process group %d or child %d still there after 10s", pid, child)
				}
				time.Sleep(10 * time.Millisecond)
			}
			if s := f.load(); s.Todos[0].Content != "keep me" {
				t.Errorf("list changed: %v", s.Todos)
			}
		})
	}
}

// TestStrayProcessHoldingOutput: the CLI exits but leaves a process that
// holds its standard output; the turn still ends, with all the output.
func TestStrayProcessHoldingOutput(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pids")
	f := newFakeRun(t, "gemini", map[string]string{
		"FAKECLI_MODE":    "stray",
		"FAKECLI_PIDFILE": pidFile,
		"FAKECLI_RUN1":    transcript("transcripts", "gemini", "gemini-run1.jsonl"),
	})
	done := make(chan error, 1)
	var res agent.Result
	go func() {
		var err error
		_, res, err = f.turn(f.agent(Config{}), agent.Turn{Prompt: "go"})
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("turn held open by a stray process")
	}
	var pid, child int
	if data, err := os.ReadFile(pidFile); err == nil {
		fmt.Sscan(string(data), &pid, &child)
		_ = syscall.Kill(child, syscall.SIGKILL)
	}
	if child == 0 {
		t.Fatal("the fake left no child")
	}
	if s := f.load(); statuses(s.Todos) != "completed,in_progress,pending" || res.FinalText == "" {
		t.Errorf("list %v, final %q", s.Todos, res.FinalText)
	}
}

// TestStreamEdgesThroughPipe sends a sub-agent's list, malformed lines, an
// unknown event and a >10 MiB line through a real CLI pipe.
func TestStreamEdgesThroughPipe(t *testing.T) {
	size := 11 << 20
	if testing.Short() {
		size = 2 << 20
	}
	big := strings.Repeat("y", size)
	stream := writeStream(t,
		`{"type":"system","subtype":"init","session_id":"edge","tools":["TodoWrite"]}`,
		`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"s","name":"TodoWrite","input":{"todos":[{"content":"sub-agent item","status":"pending","activeForm":"x"}]}}]},"parent_tool_use_id":"toolu_task"}`,
		`garbage line`,
		`{"type":"assistant","message":{"content":[`,
		`{"type":"brand_new_event","data":{"x":1}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"r","content":"`+big+`"}]},"parent_tool_use_id":null}`,
		`{"type":"assistant","message":{"content":[{"type":"text","text":"`+big+`"},{"type":"tool_use","id":"m","name":"TodoWrite","input":{"todos":[{"content":"main item","status":"in_progress","activeForm":"Doing"}]}}]},"parent_tool_use_id":null}`,
		`{"type":"result","subtype":"success","is_error":false,"result":"done?","session_id":"edge"}`)
	f := newFakeRun(t, "claude", map[string]string{"FAKECLI_RUN1": stream})
	evs, res, err := f.turn(f.agent(Config{}), agent.Turn{Prompt: "go"})
	if err != nil {
		t.Fatal(err)
	}
	if res.FinalText != "done?" {
		t.Errorf("final text %q", res.FinalText)
	}
	var notices []string
	textLen := 0
	for _, e := range evs {
		switch e.Kind {
		case agent.EventNotice:
			notices = append(notices, e.Text)
		case agent.EventText:
			textLen += len(e.Text)
		}
	}
	if len(notices) != 2 || !strings.Contains(notices[0], "line 3") || !strings.Contains(notices[1], "2 malformed") {
		t.Errorf("notices %q, want the first malformed line and a count", notices)
	}
	if textLen < size {
		t.Errorf("big text not passed on: %d bytes", textLen)
	}
	s := f.load()
	if len(s.Todos) != 1 || s.Todos[0].Content != "main item" || countKind(evs, agent.EventTodos) != 1 {
		t.Errorf("list %v (sub-agent items must not appear)", s.Todos)
	}
}

// TestDroppedItemsArchived: an agent that rewrites its list without an item
// sends it to the archive; the person's item stays.
func TestDroppedItemsArchived(t *testing.T) {
	stream := writeStream(t,
		`{"type":"init","session_id":"g1","model":"m"}`,
		`{"type":"tool_use","tool_name":"write_todos","tool_id":"a","parameters":{"todos":[{"description":"one","status":"in_progress"},{"description":"two","status":"pending"}]}}`,
		`{"type":"tool_use","tool_name":"write_todos","tool_id":"b","parameters":{"todos":[{"description":"one","status":"completed"}]}}`,
		`{"type":"result","status":"success"}`)
	f := newFakeRun(t, "gemini", map[string]string{"FAKECLI_RUN1": stream})
	s := f.turnFrom([]todostore.Todo{{Content: "mine", Status: todostore.Pending, Origin: todostore.OriginPerson, Subtasks: []todostore.Subtask{{Content: "a", Status: todostore.Pending}}}})
	var got []string
	for _, td := range s.Todos {
		got = append(got, td.Content+":"+string(td.Status))
	}
	if !reflect.DeepEqual(got, []string{"mine:pending", "one:completed"}) {
		t.Errorf("list %v", got)
	}
	if last, _ := f.sess.Store.LastChange(f.sess.ID); !strings.Contains(last.What, agent.DroppedReason) || len(last.Dropped) != 1 || last.Dropped[0].Content != "two" {
		t.Errorf("last change %+v", last)
	}
}

// TestCompletedItemTicksSubtasks: the CLIs cannot tick subtasks, so
// completing an item with the person's subtasks ticks them.
func TestCompletedItemTicksSubtasks(t *testing.T) {
	stream := writeStream(t,
		`{"type":"thread.started","thread_id":"c1"}`,
		`{"type":"item.started","item":{"id":"i","type":"todo_list","items":[{"text":"parser","completed":true},{"text":"tests","completed":false}]}}`,
		`{"type":"turn.completed","usage":{}}`)
	f := newFakeRun(t, "codex", map[string]string{"FAKECLI_RUN1": stream})
	s := f.turnFrom([]todostore.Todo{
		{Content: "parser", Status: todostore.InProgress, Subtasks: []todostore.Subtask{{Content: "quotes", Status: todostore.Pending}}},
		{Content: "tests", Status: todostore.Pending, Subtasks: []todostore.Subtask{{Content: "edge", Status: todostore.Pending}}},
	})
	if s.Todos[0].Status != todostore.Completed || s.Todos[0].Subtasks[0].Status != todostore.Completed || s.Todos[1].Subtasks[0].Status != todostore.Pending {
		t.Errorf("list\n%s", todostore.FormatList(s.Todos))
	}
}

func TestProcStat(t *testing.T) {
	st, pg, ok := procStat([]byte("1234 (a) b (c)) S 1 777 777 0 -1"))
	if !ok || st != 'S' || pg != 777 {
		t.Errorf("got %c %d %v", st, pg, ok)
	}
	if _, _, ok := procStat([]byte("garbage")); ok {
		t.Error("garbage parsed")
	}
	if groupAlive(os.Getpid()) != (syscall.Getpgrp() == os.Getpid()) {
		t.Error("groupAlive wrong about the test's own group")
	}
}

func TestNewRejectsUnknownKind(t *testing.T) {
	if _, err := New("cursor", Config{}, agent.Session{}); err == nil || !strings.Contains(err.Error(), "claude, codex, gemini") {
		t.Errorf("error %v", err)
	}
	a, err := New("codex", Config{}, agent.Session{})
	if err != nil || a.Name() != "codex" || a.TodoTool() != "update_plan" {
		t.Errorf("codex backend %v %v", a, err)
	}
}

func TestBuildArgs(t *testing.T) {
	turn := agent.Turn{Prompt: "-rf everything", TodoContext: "ctx\n<todo-list>\nTodo 0/1 done\n 1. ○ x\n</todo-list>\n"}
	cases := []struct {
		kind, resume string
		noGit        bool
		want         []string
	}{
		{"claude", "", false, []string{"-p", " -rf everything", "--output-format", "stream-json", "--verbose", "--append-system-prompt", turn.TodoContext, "--x"}},
		{"codex", "T", true, []string{"exec", "--json", "-c", "tools.update_plan.enabled=true", "--skip-git-repo-check", "--x", "resume", "T", "ctx\n<todo-list>\nTodo 0/1 done\n 1. ○ x\n</todo-list>\n\n-rf everything"}},
		{"gemini", "G", false, []string{"-p", withTodoContext(turn.TodoContext, turn.Prompt), "--output-format", "stream-json", "--resume", "G", "--x"}},
	}
	for _, c := range cases {
		if got := buildArgs(c.kind, []string{"--x"}, turn, c.resume, c.noGit); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %q\nwant %q", c.kind, got, c.want)
		}
	}
	// No context, no block.
	if got := buildArgs("codex", nil, agent.Turn{Prompt: "hi"}, "", false); got[len(got)-1] != "hi" {
		t.Errorf("codex prompt without context %q", got)
	}
}

// taskStream is a resumed Claude turn of session id whose TaskUpdate calls
// set task ids to statuses ("2=completed").
func taskStream(t *testing.T, id string, updates ...string) string {
	t.Helper()
	lines := []string{`{"type":"system","subtype":"init","session_id":"` + id + `","tools":["TaskCreate","TaskUpdate"]}`}
	for i, u := range updates {
		task, status, _ := strings.Cut(u, "=")
		use := fmt.Sprintf("toolu_%d", i)
		lines = append(lines,
			`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"`+use+`","name":"TaskUpdate","input":{"taskId":"`+task+`","status":"`+status+`"}}]},"parent_tool_use_id":null,"session_id":"`+id+`"}`,
			`{"type":"user","message":{"content":[{"tool_use_id":"`+use+`","type":"tool_result","content":"Updated task #`+task+` status"}]},"parent_tool_use_id":null,"session_id":"`+id+`","tool_use_result":{"success":true,"taskId":"`+task+`"}}`)
	}
	lines = append(lines, `{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"`+id+`"}`)
	return writeStream(t, lines...)
}

// listShow is a list as "text:status" words.
func listShow(todos []todostore.Todo) []string {
	out := []string{}
	for _, td := range todos {
		out = append(out, td.Content+":"+string(td.Status))
	}
	return out
}

// TestClaudeTasksKeepPersonEdits: with the Task tools, a task result
// changes only its own item, so what the person did between turns stands:
// an item deleted with /todo delete does not come back, and /todo done on a
// task is not reverted by the agent's update of another task.
func TestClaudeTasksKeepPersonEdits(t *testing.T) {
	const session = "12ec3832-a7d8-4254-b780-88c4e469102c"
	cases := []struct {
		name   string
		edit   func([]todostore.Todo) ([]todostore.Todo, error)
		resume func(t *testing.T) string
		want   []string
	}{
		{"deleted item stays deleted",
			func(l []todostore.Todo) ([]todostore.Todo, error) { return todostore.RemoveTodo(l, 0), nil },
			func(*testing.T) string { return transcript("fake", "claude-tasks-resume.jsonl") },
			[]string{"Implement CSV parser with quoted-field support:completed", "Write unit tests for the parser:completed"}},
		{"done on a task stands",
			func(l []todostore.Todo) ([]todostore.Todo, error) {
				return l, todostore.SetStatus(l, 2, todostore.Completed)
			},
			func(t *testing.T) string { return taskStream(t, session, "2=completed") },
			[]string{"Create project skeleton for csvkit-lite:completed", "Implement CSV parser with quoted-field support:completed", "Write unit tests for the parser:completed"}},
		{"an update of the deleted item's task changes nothing else",
			func(l []todostore.Todo) ([]todostore.Todo, error) { return todostore.RemoveTodo(l, 2), nil },
			func(t *testing.T) string { return taskStream(t, session, "3=in_progress", "3=completed") },
			[]string{"Create project skeleton for csvkit-lite:completed", "Implement CSV parser with quoted-field support:in_progress"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeRun(t, "claude", map[string]string{
				"FAKECLI_RUN1":    transcript("transcripts", "claude-tasks", "claude-run1.jsonl"),
				"FAKECLI_RESUME":  c.resume(t),
				"FAKECLI_SESSION": session,
			})
			if _, _, err := f.turn(f.agent(Config{}), agent.Turn{Prompt: "start"}); err != nil {
				t.Fatal(err)
			}
			if _, err := f.sess.Update(func(s *todostore.Session) error {
				var err error
				s.Todos, err = c.edit(s.Todos)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			evs, _, err := f.turn(f.agent(Config{}), agent.Turn{Prompt: "continue please"})
			if err != nil {
				t.Fatal(err)
			}
			s := f.load()
			if got := listShow(s.Todos); !reflect.DeepEqual(got, c.want) {
				t.Errorf("list %q\nwant %q", got, c.want)
			}
			for _, e := range evs {
				if e.Kind == agent.EventTodos && len(e.Todos) > len(c.want) {
					t.Errorf("a list shown during the turn has the deleted item back:\n%s", todostore.FormatList(e.Todos))
				}
			}
		})
	}
}

// TestClaudeTasksSurviveNewSessionID: a resumed Claude session that comes
// back under a new id keeps its task ids, so the turn after it, resuming
// the new id, still applies TaskUpdate and names TaskUpdate.
func TestClaudeTasksSurviveNewSessionID(t *testing.T) {
	const first, second = "12ec3832-a7d8-4254-b780-88c4e469102c", "second-session-id"
	textOnly := writeStream(t,
		`{"type":"system","subtype":"init","session_id":"`+second+`","tools":["Bash"]}`,
		`{"type":"assistant","message":{"content":[{"type":"text","text":"Still thinking."}]},"parent_tool_use_id":null,"session_id":"`+second+`"}`,
		`{"type":"result","subtype":"success","is_error":false,"result":"Still thinking.","session_id":"`+second+`"}`)
	f := newFakeRun(t, "claude", map[string]string{
		"FAKECLI_RUN1":    transcript("transcripts", "claude-tasks", "claude-run1.jsonl"),
		"FAKECLI_RESUME":  textOnly,
		"FAKECLI_SESSION": first,
	})
	for i, prompt := range []string{"start", "go on"} {
		if _, _, err := f.turn(f.agent(Config{}), agent.Turn{Prompt: prompt}); err != nil {
			t.Fatalf("turn %d: %v", i+1, err)
		}
	}
	if s := f.load(); s.Agent == nil || s.Agent.Session != second {
		t.Fatalf("agent ref %+v, want the new session id", s.Agent)
	}
	f.env["FAKECLI_SESSION"] = second
	f.env["FAKECLI_RESUME"] = taskStream(t, second, "2=completed", "3=in_progress")
	a := f.agent(Config{})
	if _, _, err := f.turn(a, agent.Turn{Prompt: "finish"}); err != nil {
		t.Fatalf("turn 3: %v", err)
	}
	want := []string{"Create project skeleton for csvkit-lite:completed", "Implement CSV parser with quoted-field support:completed", "Write unit tests for the parser:in_progress"}
	if got := listShow(f.load().Todos); !reflect.DeepEqual(got, want) {
		t.Errorf("list after turn 3 %q\nwant %q", got, want)
	}
	if a.TodoTool() != "TaskUpdate" {
		t.Errorf("TodoTool %q, want TaskUpdate", a.TodoTool())
	}
	if inv := f.invocations(); len(inv) != 3 || inv[1].Resume != first || inv[2].Resume != second {
		t.Errorf("invocations %+v", inv)
	}
}
