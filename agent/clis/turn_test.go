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
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/todosh/todosh/todolist"
	"github.com/todosh/todosh/todoview"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/continuation"
	"github.com/todosh/todosh/internal/procgroup"
	"github.com/todosh/todosh/internal/testenv"
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
		bin := testenv.Exe(filepath.Join(dir, "fakecli"))
		out, err := exec.Command(goBin, "build", "-o", bin, "./internal/fakecli").CombinedOutput()
		if err != nil {
			fmt.Fprintf(os.Stderr, "build fakecli: %v\n%s", err, out)
			return 1
		}
		for _, k := range Kinds {
			if err := os.Symlink(bin, testenv.Exe(filepath.Join(dir, k))); err != nil {
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
	env := testenv.Env(f.dir, "FAKECLI_RECORD="+f.record)
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
func (f *fakeRun) turnFrom(todos []todolist.Todo) *todostore.Session {
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
	Argv        []string `json:"argv"`
	Resume      string   `json:"resume"`
	Stdin       string   `json:"stdin"`
	Context     string   `json:"context"`
	ContextMode string   `json:"contextMode"`
	Dir         string   `json:"dir"`
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
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var inv invocation
		if err := json.Unmarshal(sc.Bytes(), &inv); err != nil {
			f.t.Fatal(err)
		}
		out = append(out, inv)
	}
	if err := sc.Err(); err != nil {
		f.t.Fatal(err)
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

func statuses(todos []todolist.Todo) string {
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
		// rollout puts Codex's own record of run1 (its rollout file, with
		// the statuses its stream leaves out) under CODEX_HOME.
		rollout bool
	}{
		{"claude", "claude-todowrite", "claude-run1.jsonl", "claude-resume.jsonl", "f3b303c4-9b82-483f-a4f8-445bb003551f", "completed,in_progress,pending", "TodoWrite", "TodoWrite", false, false},
		{"claude", "claude-tasks", "claude-run1.jsonl", "", "12ec3832-a7d8-4254-b780-88c4e469102c", "completed,in_progress,pending", "TaskUpdate", "TaskUpdate", false, false},
		{"claude", "claude-tasks", "claude-run1.jsonl", "", "12ec3832-a7d8-4254-b780-88c4e469102c", "completed,in_progress,pending", "TaskUpdate", "TaskUpdate", true, false},
		{"codex", "codex", "codex-run1.jsonl", "codex-resume-id.jsonl", "01a20041-b822-7443-827f-46d87d803854", "completed,pending,pending", "update_plan", "update_plan", false, false},
		{"codex", "codex", "codex-run1.jsonl", "codex-resume-id.jsonl", "01a20041-b822-7443-827f-46d87d803854", "completed,in_progress,pending", "update_plan", "update_plan", false, true},
		{"gemini", "gemini", "gemini-run1.jsonl", "gemini-resume-id.jsonl", "efe60ada-73d8-4b4e-a1d6-8e2ddc259f66", "completed,in_progress,pending", "write_todos", "write_todos", false, false},
		{"qwen", "fake", "qwen-run1.jsonl", "qwen-resume.jsonl", "7c1f2b0e-3d4a-4f5b-9c6d-1e2f3a4b5c6d", "completed,in_progress,pending", "todo_write", "todo_write", false, false},
		{"pi", "fake", "pi-run1.jsonl", "pi-resume.jsonl", "0193f2a4-5b6c-7d8e-9f00-112233445566", "completed,pending,pending", "todo", "todo", false, false},
	}
	for _, c := range cases {
		name := c.kind + "/" + c.folder
		if c.rollout {
			name += "+rollout"
		}
		t.Run(name, func(t *testing.T) {
			where := func(file string) string {
				if c.folder == "fake" {
					return transcript("fake", file) // written from the CLI's source and docs: see testdata/fake/README.md
				}
				return transcript("transcripts", c.folder, file)
			}
			resume := where(c.resume)
			if c.resume == "" {
				resume = transcript("fake", "claude-tasks-resume.jsonl")
			}
			f := newFakeRun(t, c.kind, map[string]string{
				"FAKECLI_RUN1":    where(c.run1),
				"FAKECLI_RESUME":  resume,
				"FAKECLI_SESSION": c.session,
			})
			if c.rollout {
				f.env["CODEX_HOME"] = codexHome(t, c.session, where("codex-run1.rollout"))
			}
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
				t.Fatalf("after turn 1: %s\n%s", got, todoview.FormatList(s.Todos))
			}
			if s.Agent == nil || s.Agent.Kind != c.kind || s.Agent.Session != c.session {
				t.Fatalf("agent ref %+v", s.Agent)
			}
			// The list is shown once per real change, never twice the same.
			var last string
			for _, e := range evs {
				if e.Kind == agent.EventTodos {
					if txt := todoview.FormatList(e.Todos); txt == last {
						t.Errorf("same list shown twice:\n%s", txt)
					} else {
						last = txt
					}
				}
			}
			if last != todoview.FormatList(s.Todos) {
				t.Errorf("last list shown is not the list on disk")
			}
			if a.TodoTool() != c.tool1 {
				t.Errorf("TodoTool %q, want %q", a.TodoTool(), c.tool1)
			}

			// The person adds an item; todosh restarts; the continuation
			// resumes the CLI's session.
			if _, err := f.sess.Update(func(s *todostore.Session) error {
				var err error
				s.Todos, err = todolist.InsertTodo(s.Todos, len(s.Todos), todolist.Todo{Content: "Write the README", Origin: todolist.OriginPerson})
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
			if _, res, err = f.turn(a, agent.Turn{Prompt: "Continue: 2 items are open.", TodoContext: ctxText}); err != nil {
				t.Fatalf("turn 2: %v", err)
			}
			if res.FinalText != "All three tasks are complete." {
				t.Errorf("turn 2 final text %q", res.FinalText)
			}
			s = f.load()
			if got := statuses(s.Todos); got != "completed,completed,completed,pending" || s.Todos[3].Content != "Write the README" || s.Todos[3].Origin != todolist.OriginPerson {
				t.Fatalf("after turn 2:\n%s", todoview.FormatList(s.Todos))
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

// checkArgv checks the command line of a resumed turn with todo context:
// no prompt and no todo text on it; the prompt on stdin, the todo context
// in a 0600 file (Claude, pi) or before the prompt on stdin.
func checkArgv(t *testing.T, kind string, inv invocation, ctxText string) {
	t.Helper()
	argv := strings.Join(inv.Argv, "\x00")
	has := func(seq ...string) bool { return strings.Contains(argv, strings.Join(seq, "\x00")) }
	if strings.Contains(argv, "Continue") || strings.Contains(argv, "todo-list") {
		t.Errorf("%s: prompt or todo text on the command line: %q", kind, inv.Argv)
	}
	const prompt = "Continue: 2 items are open."
	withCtx := strings.TrimRight(ctxText, "\n") + "\n\n" + prompt
	switch kind {
	case "claude":
		if !has("-p", "--output-format", "stream-json", "--verbose") || !has("--resume", inv.Resume) || !has("--model", "m1") || !has("--append-system-prompt-file") {
			t.Errorf("claude argv %q", inv.Argv)
		}
		if inv.Context != ctxText || inv.ContextMode != "600" || inv.Stdin != prompt {
			t.Errorf("claude context %q (mode %s), stdin %q", inv.Context, inv.ContextMode, inv.Stdin)
		}
	case "pi":
		if !has("--mode", "json") || !has("--session", inv.Resume) || !has("--model", "m1") || !has("--append-system-prompt") {
			t.Errorf("pi argv %q", inv.Argv)
		}
		if inv.Context != ctxText || inv.ContextMode != "600" || inv.Stdin != prompt {
			t.Errorf("pi context %q (mode %s), stdin %q", inv.Context, inv.ContextMode, inv.Stdin)
		}
	case "codex":
		if !has("exec", "--json", "-c", "tools.update_plan.enabled=true", "--skip-git-repo-check", "--model", "m1", "resume", inv.Resume, "-") {
			t.Errorf("codex argv %q", inv.Argv)
		}
		if inv.Stdin != withCtx {
			t.Errorf("codex stdin %q", inv.Stdin)
		}
	case "gemini", "qwen":
		if !has("--output-format", "stream-json") || !has("--resume", inv.Resume) || !has("--model", "m1") || has("--verbose") {
			t.Errorf("%s argv %q", kind, inv.Argv)
		}
		if inv.Stdin != withCtx {
			t.Errorf("%s stdin %q", kind, inv.Stdin)
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
		s.Todos = []todolist.Todo{{Content: "keep me", Status: todolist.InProgress}}
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
		{"usage complaint", "qwen", map[string]string{"FAKECLI_MODE": "fail", "FAKECLI_STDERR": qwenUsage}, "", "qwen: exit status 3: Unknown argument: verbose"},
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
	testenv.NeedSignals(t)
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
			if procgroup.Alive(pid) {
				t.Errorf("process group %d still running", pid)
			}
			// Dead members may wait a moment for init to reap them.
			for i := 0; testenv.Kill(-pid, 0) != syscall.ESRCH || testenv.Kill(child, 0) != syscall.ESRCH; i++ {
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
	}
	if child == 0 {
		t.Fatal("the fake left no child")
	}
	// What the CLI left behind in its process group ended with the turn.
	if procgroup.Alive(pid) {
		_ = testenv.Kill(child, syscall.SIGKILL)
		t.Errorf("the child %d outlived the turn", child)
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
	s := f.turnFrom([]todolist.Todo{{Content: "mine", Status: todolist.Pending, Origin: todolist.OriginPerson, Subtasks: []todolist.Subtask{{Content: "a", Status: todolist.Pending}}}})
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
	s := f.turnFrom([]todolist.Todo{
		{Content: "parser", Status: todolist.InProgress, Subtasks: []todolist.Subtask{{Content: "quotes", Status: todolist.Pending}}},
		{Content: "tests", Status: todolist.Pending, Subtasks: []todolist.Subtask{{Content: "edge", Status: todolist.Pending}}},
	})
	if s.Todos[0].Status != todolist.Completed || s.Todos[0].Subtasks[0].Status != todolist.Completed || s.Todos[1].Subtasks[0].Status != todolist.Pending {
		t.Errorf("list\n%s", todoview.FormatList(s.Todos))
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
	in := argsIn{extra: []string{"--x"}, resume: "R", contextFile: "/tmp/c.md", noGit: true}
	want := map[string][]string{
		"claude": {"-p", "--output-format", "stream-json", "--verbose", "--resume", "R", "--append-system-prompt-file", "/tmp/c.md", "--x"},
		"codex":  {"exec", "--json", "-c", "tools.update_plan.enabled=true", "--skip-git-repo-check", "--x", "resume", "R", "-"},
		"gemini": {"--output-format", "stream-json", "--resume", "R", "--x"},
		"qwen":   {"--output-format", "stream-json", "--resume", "R", "--x"},
		"pi":     {"--mode", "json", "--session", "R", "--append-system-prompt", "/tmp/c.md", "--x"},
	}
	for _, c := range clisTable {
		if got := c.args(in); !reflect.DeepEqual(got, want[c.name]) {
			t.Errorf("%s: %q\nwant %q", c.name, got, want[c.name])
		}
		if got := c.args(argsIn{}); slices.Contains(got, "R") || slices.Contains(got, "/tmp/c.md") {
			t.Errorf("%s: a new session without context: %q", c.name, got)
		}
	}
	turn := agent.Turn{Prompt: "-rf everything", TodoContext: "ctx\n<todo-list>\n 1. ○ x\n</todo-list>\n"}
	for _, c := range clisTable {
		got := c.stdinText(turn)
		if c.contextFlag != "" && got != turn.Prompt || c.contextFlag == "" && got != "ctx\n<todo-list>\n 1. ○ x\n</todo-list>\n\n-rf everything" {
			t.Errorf("%s stdin %q", c.name, got)
		}
	}
	if got := clisTable[1].stdinText(agent.Turn{Prompt: "hi"}); got != "hi" {
		t.Errorf("codex prompt without context %q", got)
	}
	// A continuation's prompt shows the list in its own block: the
	// context is not put before it a second time.
	cont := turn
	cont.Continuation, cont.Prompt = true, "You stopped\n<todo-list>\n 1. ○ x\n</todo-list>\n"
	for _, c := range clisTable {
		if got := c.stdinText(cont); got != cont.Prompt {
			t.Errorf("%s continuation stdin %q, want the prompt alone", c.name, got)
		}
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
func listShow(todos []todolist.Todo) []string {
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
		edit   func([]todolist.Todo) ([]todolist.Todo, error)
		resume func(t *testing.T) string
		want   []string
	}{
		{"deleted item stays deleted",
			func(l []todolist.Todo) ([]todolist.Todo, error) { return todolist.RemoveTodo(l, 0), nil },
			func(*testing.T) string { return transcript("fake", "claude-tasks-resume.jsonl") },
			[]string{"Implement CSV parser with quoted-field support:completed", "Write unit tests for the parser:completed"}},
		{"done on a task stands",
			func(l []todolist.Todo) ([]todolist.Todo, error) {
				return l, todolist.SetStatus(l, 2, todolist.Completed)
			},
			func(t *testing.T) string { return taskStream(t, session, "2=completed") },
			[]string{"Create project skeleton for csvkit-lite:completed", "Implement CSV parser with quoted-field support:completed", "Write unit tests for the parser:completed"}},
		{"an update of the deleted item's task changes nothing else",
			func(l []todolist.Todo) ([]todolist.Todo, error) { return todolist.RemoveTodo(l, 2), nil },
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
					t.Errorf("a list shown during the turn has the deleted item back:\n%s", todoview.FormatList(e.Todos))
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

// qwenUsage is what Qwen Code (yargs) writes for an unknown flag: the
// usage, every option, and the complaint after a blank line.
const qwenUsage = `Usage: qwen [options] [command]

Qwen Code - Launch an interactive CLI, use -p/--prompt for non-interactive mode

Options:
  -m, --model                     Model                             [string]
  -p, --prompt                    Prompt. Appended to input on stdin (if any).
                                                                    [string]
  -o, --output-format             The format of the CLI output.
                    [string] [choices: "text", "json", "stream-json"]
  -v, --version                   Show version number              [boolean]
  -h, --help                      Show help                        [boolean]

Unknown argument: verbose
  -h, --help                      Show help                        [boolean]
`

func TestMeaningfulLine(t *testing.T) {
	cases := []struct{ in, want string }{
		{qwenUsage, "Unknown argument: verbose"},
		{"warming up\nError: Invalid API key · Please run /login\n\n", "Error: Invalid API key · Please run /login"},
		{"Reading prompt from stdin...\nError: thread/resume: thread/resume failed: no rollout found for thread id T (code -32600)\n", "Error: thread/resume: thread/resume failed: no rollout found for thread id T (code -32600)"},
		{"one\ntwo\n", "two"},
		{"", ""},
		{"  -h, --help  Show help  [boolean]\n", "-h, --help  Show help  [boolean]"},
	}
	for _, c := range cases {
		if got := meaningfulLine(c.in); got != c.want {
			t.Errorf("meaningfulLine(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	var b stderrBuffer
	b.max = 64
	b.Write([]byte("Error: the cause comes first\n"))
	for i := 0; i < 100; i++ {
		b.Write([]byte("  --flag  some help text  [string]\n"))
	}
	if got := b.meaningfulLine(); got != "Error: the cause comes first" {
		t.Errorf("kept head: %q", got)
	}
}

// TestSessionGone: each CLI asked to resume a session that no longer
// exists answers with its own message; todosh says so once, starts a new
// session with the open items, and saves the new id.
func TestSessionGone(t *testing.T) {
	runs := map[string][2]string{
		"claude": {"transcripts/claude-todowrite/claude-run1.jsonl", "f3b303c4-9b82-483f-a4f8-445bb003551f"},
		"codex":  {"transcripts/codex/codex-run1.jsonl", "01a20041-b822-7443-827f-46d87d803854"},
		"gemini": {"transcripts/gemini/gemini-run1.jsonl", "efe60ada-73d8-4b4e-a1d6-8e2ddc259f66"},
		"qwen":   {"fake/qwen-run1.jsonl", "7c1f2b0e-3d4a-4f5b-9c6d-1e2f3a4b5c6d"},
		"pi":     {"fake/pi-run1.jsonl", "0193f2a4-5b6c-7d8e-9f00-112233445566"},
	}
	for _, kind := range Kinds {
		t.Run(kind, func(t *testing.T) {
			r := runs[kind]
			f := newFakeRun(t, kind, map[string]string{"FAKECLI_RUN1": transcript(strings.Split(r[0], "/")...), "FAKECLI_SESSION": "only-this-one"})
			if _, err := f.sess.Update(func(s *todostore.Session) error {
				s.Agent = &todostore.AgentRef{Kind: kind, Session: "gone-1"}
				s.Todos = []todolist.Todo{{Content: "keep me", Status: todolist.Pending, Origin: todolist.OriginPerson}}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			ctxText := continuation.TodoContext(f.load().Todos)
			evs, _, err := f.turn(f.agent(Config{}), agent.Turn{Prompt: "go on", TodoContext: ctxText})
			if err != nil {
				t.Fatalf("turn: %v", err)
			}
			notices := 0
			for _, e := range evs {
				if e.Kind == agent.EventNotice && strings.Contains(e.Text, "cannot be resumed; a new one starts with the open items") {
					notices++
				}
			}
			if notices != 1 {
				t.Errorf("%d notices of the gone session: %+v", notices, evs)
			}
			inv := f.invocations()
			if len(inv) != 2 || inv[0].Resume != "gone-1" || inv[1].Resume != "" {
				t.Fatalf("invocations %+v", inv)
			}
			if got := inv[1].Stdin + inv[1].Context; !strings.Contains(got, "keep me") {
				t.Errorf("the new session did not get the open items: %q", got)
			}
			s := f.load()
			if s.Agent == nil || s.Agent.Session != r[1] {
				t.Errorf("agent ref %+v, want the new session %s", s.Agent, r[1])
			}
			if !slices.ContainsFunc(s.Todos, func(td todolist.Todo) bool { return td.Content == "keep me" }) {
				t.Errorf("list %v", s.Todos)
			}
		})
	}
}

// TestRetryForeverStopped: a CLI that retries or reconnects forever shows
// one status that changes, and is stopped after the retry limit with one
// line naming what it last said; its process group is gone and the list
// is untouched.
func TestRetryForeverStopped(t *testing.T) {
	for _, kind := range Kinds {
		t.Run(kind, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "pids")
			f := newFakeRun(t, kind, map[string]string{"FAKECLI_MODE": "retry", "FAKECLI_PIDFILE": pidFile, "FAKECLI_LINE_DELAY": "1ms", "FAKECLI_IGNORE_TERM": "1"})
			seedList(t, f)
			before := f.load().Todos
			evs, _, err := f.turn(f.agent(Config{MaxRetries: 5, KillGrace: 200 * time.Millisecond}), agent.Turn{Prompt: "go"})
			var why *stopped
			if !errors.As(err, &why) || !strings.Contains(err.Error(), "5 retries or reconnects in a row, stopped; last it said:") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %v", err)
			}
			statuses := 0
			for _, e := range evs {
				if e.Kind == agent.EventStatus && e.Text != "" {
					statuses++
				}
			}
			// Statuses on stderr may come before the first stdout line, which
			// restarts the count: at least 5.
			if statuses < 5 || evs[len(evs)-1].Kind != agent.EventStatus || evs[len(evs)-1].Text != "" {
				t.Errorf("%d statuses, last event %+v", statuses, evs[len(evs)-1])
			}
			assertGroupGone(t, pidFile)
			if after := f.load().Todos; !reflect.DeepEqual(after, before) {
				t.Errorf("the list changed: %v", after)
			}
		})
	}
}

// TestIdleLimit: a CLI that falls silent is stopped after the idle limit.
func TestIdleLimit(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pids")
	f := newFakeRun(t, "claude", map[string]string{"FAKECLI_MODE": "sleep", "FAKECLI_PIDFILE": pidFile, "FAKECLI_IGNORE_TERM": "1"})
	seedList(t, f)
	before := f.load().Todos
	_, _, err := f.turn(f.agent(Config{IdleLimit: 300 * time.Millisecond, KillGrace: 200 * time.Millisecond}), agent.Turn{Prompt: "go"})
	if err == nil || err.Error() != "claude: no output for 300ms, stopped (it said nothing)" {
		t.Fatalf("error %v", err)
	}
	assertGroupGone(t, pidFile)
	if after := f.load().Todos; !reflect.DeepEqual(after, before) {
		t.Errorf("the list changed: %v", after)
	}
}

// assertGroupGone reads "pid child" from pidFile and checks that neither
// is running.
func assertGroupGone(t *testing.T, pidFile string) {
	t.Helper()
	var pid, child int
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Sscan(string(data), &pid, &child)
	if pid == 0 || child == 0 {
		t.Fatalf("pid file %q", data)
	}
	if procgroup.Alive(pid) {
		t.Errorf("process group %d still running", pid)
	}
}

// TestNoTodoToolSaidOnce: a stream that shows the CLI has no todo tool
// makes one notice per session that says what to change.
func TestNoTodoToolSaidOnce(t *testing.T) {
	stream := writeStream(t,
		`{"type":"init","timestamp":"2026-11-21T22:38:15.458Z","session_id":"g1","model":"gemini-3-pro-preview"}`,
		`{"type":"message","timestamp":"2026-11-21T22:38:15.489Z","role":"assistant","content":"Done.","delta":true}`,
		`{"type":"result","timestamp":"2026-11-21T22:38:16.000Z","status":"success","stats":{}}`)
	f := newFakeRun(t, "gemini", map[string]string{"FAKECLI_RUN1": stream, "FAKECLI_RESUME": stream, "FAKECLI_SESSION": "g1"})
	a := f.agent(Config{})
	count := 0
	for i := 0; i < 2; i++ {
		evs, _, err := f.turn(a, agent.Turn{Prompt: "go"})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			if e.Kind == agent.EventNotice && strings.Contains(e.Text, "--approval-mode") {
				count++
			}
			if e.Kind == agent.EventNotice && strings.Contains(e.Text, "gemini-3-pro-preview is not offered write_todos") {
				count++
			}
			if e.Kind == agent.EventNotice && len("  note: "+e.Text) > 120 {
				t.Errorf("notice longer than a note line: %q", e.Text)
			}
		}
	}
	if count != 2 {
		t.Errorf("told %d lines, want the two lines once", count)
	}
}

// TestLargeListOnStdin: a list of the largest legal size (100 items of 990
// '€', far over Linux's 128 KiB per argument) reaches every CLI whole.
func TestLargeListOnStdin(t *testing.T) {
	todos := make([]todolist.Todo, 100)
	for i := range todos {
		todos[i] = todolist.Todo{Content: strings.Repeat("€", 990), Status: todolist.Pending}
	}
	ctxText := continuation.TodoContext(todos)
	for _, kind := range Kinds {
		t.Run(kind, func(t *testing.T) {
			f := newFakeRun(t, kind, map[string]string{"FAKECLI_RUN1": transcript("fake", "claude-tasks-resume.jsonl")})
			if _, _, err := f.turn(f.agent(Config{}), agent.Turn{Prompt: "go", TodoContext: ctxText}); err != nil {
				t.Log(err)
			}
			inv := f.invocations()
			if len(inv) != 1 {
				t.Fatalf("invocations %d", len(inv))
			}
			if got := inv[0].Stdin + inv[0].Context; len(ctxText) < 128<<10 || !strings.Contains(got, strings.TrimRight(ctxText, "\n")) {
				t.Errorf("the list did not arrive whole (%d bytes)", len(got))
			}
			for _, a := range inv[0].Argv {
				if len(a) > 1000 {
					t.Errorf("a long argument: %d bytes", len(a))
				}
			}
			if i := slices.Index(inv[0].Argv, clisTable[slices.Index(Kinds, kind)].contextFlag); i >= 0 && inv[0].Argv[i] != "" {
				if _, err := os.Stat(inv[0].Argv[i+1]); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("context file %s left behind: %v", inv[0].Argv[i+1], err)
				}
			}
		})
	}
}

func TestTroubleLines(t *testing.T) {
	b := &stderrBuffer{max: 1 << 10, trouble: make(chan string, 4)}
	b.Write([]byte("Loaded cached credentials.\nAttempt 2 failed with status 429. Retry"))
	b.Write([]byte("ing with backoff... ApiError\n[qwen-code] Waiting for API capacity... attempt 3, retry in 45s\nunknown flag\n"))
	close(b.trouble)
	var got []string
	for l := range b.trouble {
		got = append(got, l)
	}
	want := []string{"Attempt 2 failed with status 429. Retrying with backoff... ApiError", "Waiting for API capacity... attempt 3, retry in 45s"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("trouble %q, want %q", got, want)
	}
}

// TestCancelSaysLastStatus: Ctrl-C during a CLI's retries ends the turn
// with a line saying what the CLI last said, since its status goes away.
func TestCancelSaysLastStatus(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pids")
	f := newFakeRun(t, "codex", map[string]string{"FAKECLI_MODE": "retry", "FAKECLI_PIDFILE": pidFile, "FAKECLI_LINE_DELAY": "5ms"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var evs []agent.Event
	_, err := f.agent(Config{KillGrace: 200 * time.Millisecond}).RunTurn(ctx, agent.Turn{Prompt: "go"}, func(e agent.Event) {
		evs = append(evs, e)
		if e.Kind == agent.EventStatus && strings.HasPrefix(e.Text, "Reconnecting... 3/5") {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v", err)
	}
	last := evs[len(evs)-1]
	if last.Kind != agent.EventNotice || !strings.HasPrefix(last.Text, "codex last said: Reconnecting... 3/5") {
		t.Errorf("last event %+v", last)
	}
	assertGroupGone(t, pidFile)
}

// TestEnvDefaults: a row's variables are added unless the person set
// them, and a person's other value is what the no-list notice names.
func TestEnvDefaults(t *testing.T) {
	row, _ := lookup("claude")
	tests := []struct {
		env        []string
		want       string // the variable's value in the result
		overridden string
	}{
		{[]string{"HOME=/h"}, "1", ""},
		{[]string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=0"}, "0", "CLAUDE_CODE_ENABLE_TODO_TOOLS=0"},
		{[]string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1"}, "1", ""},
		{[]string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TODO_TOOLS="}, "", "CLAUDE_CODE_ENABLE_TODO_TOOLS="},
	}
	for _, tt := range tests {
		env := WithDefaults(tt.env, row.toolEnv)
		if v, _ := lookupEnv(env, "CLAUDE_CODE_ENABLE_TODO_TOOLS"); v != tt.want {
			t.Errorf("%v: value %q, want %q", tt.env, v, tt.want)
		}
		if got := row.overridden(env); got != tt.overridden {
			t.Errorf("%v: overridden %q, want %q", tt.env, got, tt.overridden)
		}
	}
	if codex, _ := lookup("codex"); len(WithDefaults([]string{"A=1"}, slices.Concat(codex.env, codex.toolEnv))) != 1 {
		t.Error("codex got variables it has no row for")
	}
	if gemini, _ := lookup("gemini"); gemini.overridden([]string{"GEMINI_CLI_NO_RELAUNCH=0"}) != "" {
		t.Error("a variable that does not hide todo tools is named as the cause")
	}
}
