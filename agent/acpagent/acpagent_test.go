package acpagent

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/todosh/todosh/todolist"
	"github.com/todosh/todosh/todoview"

	acp "github.com/coder/acp-go-sdk"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/internal/testenv"
	"github.com/todosh/todosh/todostore"
)

// fakeBin is the test-only ACP agent (internal/fakeacp); fakeCLI the
// clis package's fake CLI, named claude, for the continuation benchmark.
var fakeBin, fakeCLI string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "acpagent")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fakeBin, fakeCLI = testenv.Exe(filepath.Join(dir, "fakeacp")), testenv.Exe(filepath.Join(dir, "claude"))
	raced := testenv.HaltOnRace(dir)
	for pkg, out := range map[string]string{"./internal/fakeacp": fakeBin, "../clis/internal/fakecli": fakeCLI} {
		args := append(append([]string{"build"}, testenv.BuildFlags()...), "-o", out, pkg)
		if msg, err := exec.Command("go", args...).CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "build %s: %v\n%s", pkg, err, msg)
			os.Exit(1)
		}
	}
	code := m.Run()
	if raced() && code == 0 {
		code = 1
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

func newTestAgent(t testing.TB, env ...string) (*Agent, agent.Session) {
	t.Helper()
	sess := agent.Session{Store: todostore.Open(t.TempDir()), ID: "t1"}
	a, err := New(Config{Name: "acp", Bin: fakeBin, Dir: t.TempDir(), Env: testenv.Env(t.TempDir(), env...)}, sess)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a, sess
}

// events records a turn's events as lines.
type events []string

func (e *events) emit(ev agent.Event) {
	switch ev.Kind {
	case agent.EventText:
		*e = append(*e, "text:"+ev.Text)
	case agent.EventToolCall:
		*e = append(*e, "tool:"+ev.Text)
	case agent.EventTodos:
		*e = append(*e, fmt.Sprintf("todos:%d", len(ev.Todos)))
	case agent.EventNotice:
		*e = append(*e, "notice:"+ev.Text)
	}
}

// TestPermissionAnswers: the answer to a permission request for each
// --approve, with and without a person to ask; a continuation is asked
// like any turn.
func TestPermissionAnswers(t *testing.T) {
	opts := []acp.PermissionOption{
		{OptionId: "always", Name: "Always Allow", Kind: acp.PermissionOptionKindAllowAlways},
		{OptionId: "once", Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce},
		{OptionId: "no", Name: "Reject", Kind: acp.PermissionOptionKindRejectOnce},
	}
	title := "Run rm -rf build"
	req := acp.RequestPermissionRequest{ToolCall: acp.ToolCallUpdate{Title: &title}, Options: opts}
	pick := func(i int) func(context.Context, agent.Question) (int, error) {
		return func(_ context.Context, q agent.Question) (int, error) {
			if !strings.Contains(q.Text, title) || len(q.Options) != 3 {
				t.Errorf("question %+v", q)
			}
			return i, nil
		}
	}
	tests := []struct {
		name    string
		approve Approve
		turn    agent.Turn
		want    string // option id, or "cancelled"
	}{
		{"script, default", ApproveAsk, agent.Turn{}, "no"},
		{"script, never", ApproveNever, agent.Turn{}, "no"},
		{"script, always", ApproveAlways, agent.Turn{}, "always"},
		{"terminal, person allows", ApproveAsk, agent.Turn{Ask: pick(1)}, "once"},
		{"terminal, continuation asks too", ApproveAsk, agent.Turn{Continuation: true, Ask: pick(0)}, "always"},
		{"terminal, never wins", ApproveNever, agent.Turn{Ask: pick(0)}, "no"},
		{"terminal, no answer", ApproveAsk, agent.Turn{Ask: func(context.Context, agent.Question) (int, error) { return 0, fmt.Errorf("ctrl-c") }}, "cancelled"},
	}
	for _, tt := range tests {
		a := &Agent{cfg: Config{Name: "acp", Approve: tt.approve}}
		var ev events
		resp, _ := a.permission(context.Background(), &process{label: "acp"}, tt.turn, req, ev.emit)
		got := "cancelled"
		if resp.Outcome.Selected != nil {
			got = string(resp.Outcome.Selected.OptionId)
		}
		if got != tt.want {
			t.Errorf("%s: answer %q, want %q", tt.name, got, tt.want)
		}
	}
	// todosh's own MCP tools are allowed without asking, for good.
	own := "mcp__todosh__todo_write"
	a := &Agent{cfg: Config{Name: "acp", Approve: ApproveNever, MCP: &agent.MCPServer{Name: "todosh"}}}
	var ev0 events
	if resp, _ := a.permission(context.Background(), &process{label: "acp"}, agent.Turn{}, acp.RequestPermissionRequest{ToolCall: acp.ToolCallUpdate{Title: &own}, Options: opts}, ev0.emit); resp.Outcome.Selected == nil || resp.Outcome.Selected.OptionId != "always" {
		t.Errorf("todosh's own tool: %+v", resp.Outcome)
	}
	other := "mcp__other__todo_write"
	if resp, _ := a.permission(context.Background(), &process{label: "acp"}, agent.Turn{}, acp.RequestPermissionRequest{ToolCall: acp.ToolCallUpdate{Title: &other}, Options: opts}, ev0.emit); resp.Outcome.Selected == nil || resp.Outcome.Selected.OptionId != "no" {
		t.Errorf("another server's tool: %+v", resp.Outcome)
	}
	// Without reject options a refusal is the cancelled outcome.
	a = &Agent{cfg: Config{Name: "acp", Approve: ApproveNever}}
	var ev events
	if resp, _ := a.permission(context.Background(), &process{label: "acp"}, agent.Turn{}, acp.RequestPermissionRequest{Options: opts[:2]}, ev.emit); resp.Outcome.Cancelled == nil {
		t.Errorf("no reject option: %+v", resp.Outcome)
	}
}

// TestTurn drives the fake agent in process: text, plan mirrored, one
// process for several turns, and a turn's stop reason.
func TestTurn(t *testing.T) {
	a, sess := newTestAgent(t)
	var ev events
	res, err := a.RunTurn(context.Background(), agent.Turn{Prompt: "[[plan]] go"}, ev.emit)
	if err != nil {
		t.Fatal(err)
	}
	if res.FinalText != "I'll stop here for now." {
		t.Errorf("final text %q", res.FinalText)
	}
	got := strings.Join(ev, "|")
	if !strings.Contains(got, "todos:3") || !strings.Contains(got, "text:Skeleton") {
		t.Errorf("events %s", got)
	}
	s, _ := sess.Load()
	if s.Todos[0].Status != todolist.Completed || s.Todos[1].Status != todolist.InProgress {
		t.Errorf("list\n%s", todoview.FormatList(s.Todos))
	}
	first := a.proc.cmd.Process.Pid
	if _, err := a.RunTurn(context.Background(), agent.Turn{Prompt: "You stopped", Continuation: true}, ev.emit); err != nil {
		t.Fatal(err)
	}
	if a.proc.cmd.Process.Pid != first {
		t.Errorf("a continuation started a new agent process")
	}
	if _, err := a.RunTurn(context.Background(), agent.Turn{Prompt: "[[stop:refusal]]"}, ev.emit); err == nil || !strings.Contains(err.Error(), "refusal") {
		t.Errorf("refusal: %v", err)
	}
}

// BenchmarkTurnOverhead compares a turn driven by todosh's ACP backend
// with the same turn driven by a bare SDK client that does nothing with
// the updates, both on a live fake agent. Paced, the agent spends
// FAKEACP_PACE before each text chunk, as a model streaming would; the
// overhead-% metric is what todosh adds (updates handled, the plan merged
// into the store) over the bare turn.
func BenchmarkTurnOverhead(b *testing.B) {
	for _, pace := range []string{"", "10ms", "25ms"} {
		name := "instant"
		if pace != "" {
			name = "paced-" + pace
		}
		b.Run(name, func(b *testing.B) {
			env := []string{"FAKEACP_PACE=" + pace}
			a, _ := newTestAgent(b, env...)
			bare := newBareClient(b, env)
			turn := agent.Turn{Prompt: "[[plan]] go"}
			// Start both agents before timing.
			if _, err := a.RunTurn(context.Background(), turn, func(agent.Event) {}); err != nil {
				b.Fatal(err)
			}
			bare.prompt(b, turn.Prompt)
			var direct, wrapped time.Duration
			b.ResetTimer()
			for range b.N {
				t0 := time.Now()
				bare.prompt(b, turn.Prompt)
				t1 := time.Now()
				if _, err := a.RunTurn(context.Background(), turn, func(agent.Event) {}); err != nil {
					b.Fatal(err)
				}
				direct += t1.Sub(t0)
				wrapped += time.Since(t1)
			}
			b.ReportMetric(float64(direct.Microseconds())/float64(b.N), "bare-µs/turn")
			b.ReportMetric(float64(wrapped.Microseconds())/float64(b.N), "todosh-µs/turn")
			b.ReportMetric(100*float64(wrapped-direct)/float64(direct), "overhead-%")
		})
	}
}

// bareClient is the SDK's client with nothing behind it: the floor.
type bareClient struct {
	conn *acp.ClientSideConnection
	id   acp.SessionId
}

func newBareClient(b *testing.B, env []string) *bareClient {
	cmd := exec.Command(fakeBin)
	cmd.Env = testenv.Env(b.TempDir(), env...)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	c := &bareClient{conn: acp.NewClientSideConnection(&client{}, in, out)}
	c.conn.SetLogger(slog.New(slog.DiscardHandler))
	ctx := context.Background()
	if _, err := c.conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber}); err != nil {
		b.Fatal(err)
	}
	s, err := c.conn.NewSession(ctx, acp.NewSessionRequest{Cwd: b.TempDir(), McpServers: []acp.McpServer{}})
	if err != nil {
		b.Fatal(err)
	}
	c.id = s.SessionId
	return c
}

func (c *bareClient) prompt(b *testing.B, text string) {
	if _, err := c.conn.Prompt(context.Background(), acp.PromptRequest{SessionId: c.id, Prompt: []acp.ContentBlock{acp.TextBlock(text)}}); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkContinuationStart is the time from a continuation's start to
// the agent's first text: a session/prompt to a live ACP agent, against
// a new CLI process per turn (the clis package's fake claude replaying a
// recorded transcript). Both fakes start in milliseconds; a real CLI
// takes seconds, so the real ratio is far larger.
func BenchmarkContinuationStart(b *testing.B) {
	first := func(run func(emit func(agent.Event)) error) time.Duration {
		t0 := time.Now()
		var at time.Duration
		if err := run(func(ev agent.Event) {
			if ev.Kind == agent.EventText && at == 0 {
				at = time.Since(t0)
			}
		}); err != nil {
			b.Fatal(err)
		}
		return at
	}
	b.Run("acp-live", func(b *testing.B) {
		a, _ := newTestAgent(b)
		turn := agent.Turn{Prompt: "You stopped", Continuation: true}
		a.RunTurn(context.Background(), agent.Turn{Prompt: "[[plan]]"}, func(agent.Event) {})
		var total time.Duration
		b.ResetTimer()
		for range b.N {
			total += first(func(emit func(agent.Event)) error {
				_, err := a.RunTurn(context.Background(), turn, emit)
				return err
			})
		}
		b.ReportMetric(float64(total.Microseconds())/float64(b.N), "µs-to-first-text")
	})
	b.Run("cli-process", func(b *testing.B) {
		run1, err := filepath.Abs("../clis/testdata/transcripts/claude-todowrite/claude-run1.jsonl")
		if err != nil {
			b.Fatal(err)
		}
		store := todostore.Open(b.TempDir())
		var total time.Duration
		b.ResetTimer()
		for i := range b.N {
			// A new session each time: the fake CLI resumes only its own.
			sess := agent.Session{Store: store, ID: fmt.Sprintf("c%d", i)}
			a, err := newCLI(fakeCLI, sess, run1, b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			total += first(func(emit func(agent.Event)) error {
				_, err := a.RunTurn(context.Background(), agent.Turn{Prompt: "You stopped", Continuation: true}, emit)
				return err
			})
		}
		b.ReportMetric(float64(total.Microseconds())/float64(b.N), "µs-to-first-text")
	})
}

// TestOwnToolShapes: the permission requests of each agent for todosh's
// own tools are recognised, and no other.
func TestOwnToolShapes(t *testing.T) {
	str := func(s string) *string { return &s }
	tests := []struct {
		name string
		tc   acp.ToolCallUpdate
		want bool
	}{
		{"claude-agent-acp title", acp.ToolCallUpdate{Title: str("mcp__todosh__todo_write")}, true},
		{"gemini title", acp.ToolCallUpdate{Title: str("todo_tick (todosh MCP Server)")}, true},
		{"gemini spelled", acp.ToolCallUpdate{Title: str("mcp_todosh_todo_pause")}, true},
		{"codex-acp raw input", acp.ToolCallUpdate{Title: str("Approve MCP tool call"), RawInput: map[string]any{"server_name": "todosh", "tool_name": "todo_write"}}, true},
		{"codex-acp content", acp.ToolCallUpdate{Title: str("Approve MCP tool call"), Content: []acp.ToolCallContent{acp.ToolContent(acp.TextBlock(`Allow the todosh MCP server to run tool "todo_write"?`))}}, true},
		{"another server", acp.ToolCallUpdate{Title: str("mcp__other__todo_write")}, false},
		{"another server's raw input", acp.ToolCallUpdate{Title: str("Approve MCP tool call"), RawInput: map[string]any{"server_name": "todoshx", "tool_name": "todo_write"}}, false},
		{"a name inside a word", acp.ToolCallUpdate{Title: str("mcp__todoshell__todo_writer")}, false},
		{"shell command", acp.ToolCallUpdate{Title: str("rm -rf todosh")}, false},
	}
	for _, tt := range tests {
		if got := OwnTool("todosh", tt.tc); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestAllowOption: todosh's own tools get the session-wide "always" of
// each agent, never one saved in the person's configuration, and
// --approve always takes a saved one only when nothing else is offered.
func TestAllowOption(t *testing.T) {
	o := func(id, name string, kind acp.PermissionOptionKind) acp.PermissionOption {
		return acp.PermissionOption{OptionId: acp.PermissionOptionId(id), Name: name, Kind: kind}
	}
	codex := []acp.PermissionOption{o("approved", "Allow", acp.PermissionOptionKindAllowOnce),
		o("approved-for-session", "Allow for this session", acp.PermissionOptionKindAllowAlways),
		o("approved-always", "Allow and don't ask again", acp.PermissionOptionKindAllowAlways),
		o("cancel", "Cancel", acp.PermissionOptionKindRejectOnce)}
	gemini := []acp.PermissionOption{o("proceed_always_server", "Always allow all tools from server todosh", acp.PermissionOptionKindAllowAlways),
		o("proceed_always_tool", "Always allow tool todo_write", acp.PermissionOptionKindAllowAlways),
		o("proceed_once", "Allow once", acp.PermissionOptionKindAllowOnce), o("cancel", "Cancel", acp.PermissionOptionKindRejectOnce)}
	claude := []acp.PermissionOption{o("allow_always", "Always Allow", acp.PermissionOptionKindAllowAlways),
		o("allow", "Allow", acp.PermissionOptionKindAllowOnce), o("reject", "Reject", acp.PermissionOptionKindRejectOnce)}
	savedOnly := []acp.PermissionOption{o("approved-always", "Allow and don't ask again", acp.PermissionOptionKindAllowAlways),
		o("approved", "Allow", acp.PermissionOptionKindAllowOnce)}
	tests := []struct {
		name    string
		opts    []acp.PermissionOption
		persist bool
		want    string
	}{
		{"codex", codex, false, "approved-for-session"},
		{"codex, --approve always", codex, true, "approved-for-session"},
		{"gemini", gemini, false, "proceed_always_server"},
		{"claude", claude, false, "allow_always"},
		{"saved only", savedOnly, false, "approved"},
		{"saved only, --approve always", savedOnly, true, "approved-always"},
		{"nothing allows", []acp.PermissionOption{o("cancel", "Cancel", acp.PermissionOptionKindRejectOnce)}, true, ""},
	}
	for _, tt := range tests {
		got, ok := AllowOption(tt.opts, tt.persist)
		if string(got.OptionId) != tt.want || ok != (tt.want != "") {
			t.Errorf("%s: %q %v, want %q", tt.name, got.OptionId, ok, tt.want)
		}
	}
}

// TestWriteTodosInput: the list of a whole-list call is read from each
// agent's raw input; input without one is not a list.
func TestWriteTodosInput(t *testing.T) {
	gem := map[string]any{"todos": []any{map[string]any{"description": "a", "status": "in_progress"},
		map[string]any{"description": "b", "status": "cancelled"}, map[string]any{"description": "c", "status": "pending"}}}
	e, ok := WriteTodosInput(gem)
	if !ok || len(e) != 2 || e[0].Content != "a" || e[0].Status != acp.PlanEntryStatusInProgress || e[1].Content != "c" {
		t.Errorf("gemini: %+v %v", e, ok)
	}
	codex := map[string]any{"plan": []any{map[string]any{"step": "x", "status": "completed"}}}
	if e, ok := WriteTodosInput(codex); !ok || len(e) != 1 || e[0].Status != acp.PlanEntryStatusCompleted {
		t.Errorf("codex: %+v %v", e, ok)
	}
	for _, raw := range []any{nil, "todos", map[string]any{"command": "ls"}, map[string]any{"todos": "x"}} {
		if _, ok := WriteTodosInput(raw); ok {
			t.Errorf("%v read as a list", raw)
		}
	}
	if !setTodosTitle("Set 3 todo(s)") || setTodosTitle("Settle the todo") {
		t.Error("setTodosTitle")
	}
}

// TestInitializeUnansweredNamesTheCommand: a command that never answers
// initialize (gemini started without --acp waits for a person) is
// refused once its time is up, naming the command it ran and the likely
// cause, not the SDK's "Internal error".
func TestInitializeUnansweredNamesTheCommand(t *testing.T) {
	testenv.NeedShell(t)
	sess := agent.Session{Store: todostore.Open(t.TempDir()), ID: "t1"}
	a, err := New(Config{Name: "acp:gemini", Bin: "sleep", Args: []string{"30"}, Dir: t.TempDir(), Env: testenv.Env(t.TempDir()),
		StartTimeout: 300 * time.Millisecond, KillGrace: 100 * time.Millisecond}, sess)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	_, err = a.RunTurn(context.Background(), agent.Turn{Prompt: "hi"}, func(agent.Event) {})
	if err == nil || !strings.Contains(err.Error(), "is `sleep 30` an ACP agent?") {
		t.Errorf("err = %v, want the command named as perhaps no ACP agent", err)
	}
}
