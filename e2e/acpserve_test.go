package e2e_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
)

// editor is a test editor: acp-go-sdk's client side driving the built
// `todosh acp` over pipes, recording every session/update it gets.
type editor struct {
	t    testing.TB
	h    home
	cmd  *exec.Cmd
	in   io.WriteCloser
	conn *acp.ClientSideConnection
	done chan struct{} // closed when todosh has exited

	mu      sync.Mutex
	updates []acp.SessionNotification
	perms   []acp.RequestPermissionRequest
	changed chan struct{} // a new update arrived (capacity 1)
	// permit answers permission requests: the option id to select.
	permit string
	// files are what fs/read_text_file returns.
	files map[string]string
	// mcp are the editor's MCP servers, given in session/new.
	mcp []acp.McpServer
	// schema checks every message of the connection (schema_test.go).
	schema *schemaCheck
}

// startEditor starts todosh acp with args in h, with extra environment.
func startEditor(t testing.TB, h home, env []string, args ...string) *editor {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"acp"}, args...)...)
	cmd.Env = append(h.env(), env...)
	cmd.Dir = h.dir
	rawIn, rawOut, stderr := startPiped(t, cmd)
	// Every message both ways is checked against the ACP schema.
	check := newSchemaCheck(t)
	in := &tapWriter{w: rawIn, c: check, side: "client"}
	out := &tapReader{r: rawOut, c: check, side: "agent"}
	e := &editor{t: t, h: h, cmd: cmd, in: in, done: make(chan struct{}), changed: make(chan struct{}, 1), permit: "allow", files: map[string]string{}, schema: check}
	go func() {
		cmd.Wait()
		close(e.done)
	}()
	e.conn = acp.NewClientSideConnection(e, in, out)
	e.conn.SetLogger(slog.New(slog.DiscardHandler))
	t.Cleanup(func() {
		in.Close()
		select {
		case <-e.done:
		case <-time.After(deadline):
			cmd.Process.Kill()
			t.Errorf("todosh acp did not exit when stdin closed; stderr:\n%s", stderr.String())
		}
		check.report(t)
	})
	return e
}

// initialize and open a new session in h.dir; fs says whether the editor
// offers fs/read_text_file.
func (e *editor) newSession(fs bool) acp.SessionId {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	init, err := e.conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber,
		ClientCapabilities: acp.ClientCapabilities{Fs: acp.FileSystemCapabilities{ReadTextFile: fs}}})
	if err != nil {
		e.t.Fatalf("initialize: %v", err)
	}
	if !init.AgentCapabilities.LoadSession || init.ProtocolVersion != acp.ProtocolVersionNumber {
		e.t.Errorf("initialize = %+v, want loadSession and protocol %d", init, acp.ProtocolVersionNumber)
	}
	s, err := e.conn.NewSession(ctx, acp.NewSessionRequest{Cwd: e.h.dir, McpServers: append([]acp.McpServer{}, e.mcp...)})
	if err != nil {
		e.t.Fatalf("session/new: %v", err)
	}
	return s.SessionId
}

// prompt sends one prompt and waits for its answer.
func (e *editor) prompt(id acp.SessionId, text string) (acp.StopReason, error) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*deadline)
	defer cancel()
	r, err := e.conn.Prompt(ctx, acp.PromptRequest{SessionId: id, Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
	return r.StopReason, err
}

// mustPrompt is prompt that must end with end_turn.
func (e *editor) mustPrompt(id acp.SessionId, text string) {
	e.t.Helper()
	r, err := e.prompt(id, text)
	if err != nil || r != acp.StopReasonEndTurn {
		e.t.Fatalf("prompt %q: %v %v, want end_turn; text so far:\n%s", text, r, err, e.text())
	}
}

// SessionUpdate implements acp.Client.
func (e *editor) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	e.mu.Lock()
	e.updates = append(e.updates, n)
	e.mu.Unlock()
	select {
	case e.changed <- struct{}{}:
	default:
	}
	return nil
}

// RequestPermission implements acp.Client: it selects e.permit.
func (e *editor) RequestPermission(_ context.Context, p acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	e.mu.Lock()
	e.perms = append(e.perms, p)
	e.mu.Unlock()
	return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{Selected: &acp.RequestPermissionOutcomeSelected{OptionId: acp.PermissionOptionId(e.permit)}}}, nil
}

// ReadTextFile implements acp.Client from e.files.
func (e *editor) ReadTextFile(_ context.Context, p acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	c, ok := e.files[p.Path]
	if !ok {
		return acp.ReadTextFileResponse{}, acp.NewInvalidParams(map[string]any{"error": "no such file"})
	}
	return acp.ReadTextFileResponse{Content: c}, nil
}

func (e *editor) WriteTextFile(context.Context, acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	return acp.WriteTextFileResponse{}, acp.NewMethodNotFound("fs/write_text_file")
}
func (e *editor) CreateTerminal(context.Context, acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	return acp.CreateTerminalResponse{}, acp.NewMethodNotFound("terminal/create")
}
func (e *editor) KillTerminal(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return acp.KillTerminalResponse{}, acp.NewMethodNotFound("terminal/kill")
}
func (e *editor) TerminalOutput(context.Context, acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return acp.TerminalOutputResponse{}, acp.NewMethodNotFound("terminal/output")
}
func (e *editor) ReleaseTerminal(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return acp.ReleaseTerminalResponse{}, acp.NewMethodNotFound("terminal/release")
}
func (e *editor) WaitForTerminalExit(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return acp.WaitForTerminalExitResponse{}, acp.NewMethodNotFound("terminal/wait_for_exit")
}

// text is every message chunk so far, joined.
func (e *editor) text() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var b strings.Builder
	for _, n := range e.updates {
		if c := n.Update.AgentMessageChunk; c != nil && c.Content.Text != nil {
			b.WriteString(c.Content.Text.Text)
		}
	}
	return b.String()
}

// plans are the plan updates so far, each as "status content" lines.
func (e *editor) plans() [][]string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out [][]string
	for _, n := range e.updates {
		if p := n.Update.Plan; p != nil {
			var lines []string
			for _, en := range p.Entries {
				lines = append(lines, string(en.Status)+" "+en.Content)
			}
			out = append(out, lines)
		}
	}
	return out
}

// waitFor waits until cond holds for the updates so far.
func (e *editor) waitFor(what string, cond func() bool) {
	e.t.Helper()
	limit := time.After(deadline)
	for !cond() {
		select {
		case <-e.changed:
		case <-limit:
			e.t.Fatalf("waited for %s; text:\n%s\nplans: %q", what, e.text(), e.plans())
		}
	}
}

// lastPlanHas reports whether the last plan has an entry containing s.
func (e *editor) lastPlanHas(s string) bool {
	p := e.plans()
	return len(p) > 0 && strings.Contains(strings.Join(p[len(p)-1], "\n"), s)
}

// checkPlansDistinct fails when two plan updates in a row are the same:
// the editor gets each list once.
func checkPlansDistinct(t *testing.T, plans [][]string) {
	t.Helper()
	for i := 1; i < len(plans); i++ {
		if strings.Join(plans[i], "\n") == strings.Join(plans[i-1], "\n") {
			t.Errorf("plan update %d repeats update %d: %q", i, i-1, plans[i])
		}
	}
}

// TestACPServePlanTodoAndOtherProcess: an ACP agent behind todosh acp; its
// plan reaches the editor as todosh's list, once per change; a lazy end is
// continued to done inside the same prompt; /todo is answered without a
// model call; a /todo edit by another todosh reaches the editor as a plan;
// the agent's commands come with todosh's todo.
func TestACPServePlanTodoAndOtherProcess(t *testing.T) {
	r := newACP(t)
	e := startEditor(t, r.h, r.env, "--", fakeacp)
	id := e.newSession(false)
	e.mustPrompt(id, "[[plan]] build csvkit-lite")
	text := e.text()
	for _, want := range []string{"I'll break this work into a todo list first.", "todosh: continuing 1/3 — 2 open items", "todosh: all done"} {
		if !strings.Contains(text, want) {
			t.Errorf("the editor's text lacks %q:\n%s", want, text)
		}
	}
	plans := e.plans()
	checkPlansDistinct(t, plans)
	// The agent sent 2 plans and 2 more in the continuations: 4 lists.
	if len(plans) != 4 {
		t.Errorf("%d plan updates, want 4 (one per list): %q", len(plans), plans)
	}
	if !e.lastPlanHas("completed Write unit tests for the parser") {
		t.Errorf("last plan = %q, want all completed", plans[len(plans)-1])
	}
	r.h.assertList(t, string(id), "Create project skeleton for csvkit-lite", "Implement CSV parser with quoted-field support", "Write unit tests for the parser")

	e.mustPrompt(id, `/todo add "ship it"`)
	if !strings.Contains(e.text(), `+ 4 "ship it"`) {
		t.Errorf("/todo add's answer missing:\n%s", e.text())
	}
	e.waitFor("the plan with the added item", func() bool { return e.lastPlanHas("pending ship it") })
	if n := strings.Count(r.received(t), `"method":"session/prompt"`); n != 3 {
		t.Errorf("%d session/prompt calls reached the agent, want 3 (/todo is todosh's)", n)
	}

	// Another process edits the list: the watcher brings it to the editor.
	res := r.h.script(t, r.h.dir, "", "--session", string(id), "-c", `/todo edit 4 "ship it today"`)
	if res.code != 0 {
		t.Fatalf("other todosh: exit %d: %s", res.code, res.stderr)
	}
	e.waitFor("the other process's edit", func() bool { return e.lastPlanHas("pending ship it today") })
	checkPlansDistinct(t, e.plans())

	// The agent's own slash command goes alone, with no continuation after
	// it although an item is open.
	before := strings.Count(e.text(), "todosh: continuing")
	e.mustPrompt(id, "/compact now")
	if !strings.Contains(r.received(t), `"prompt":[{"text":"/compact now","type":"text"}]`) {
		t.Errorf("/compact did not reach the agent alone:\n%s", r.received(t))
	}
	if strings.Count(e.text(), "todosh: continuing") != before {
		t.Errorf("a slash command was continued:\n%s", e.text())
	}

	e.waitFor("the merged commands", func() bool {
		e.mu.Lock()
		defer e.mu.Unlock()
		for _, n := range e.updates {
			if u := n.Update.AvailableCommandsUpdate; u != nil && len(u.AvailableCommands) == 2 &&
				u.AvailableCommands[0].Name == "todo" && u.AvailableCommands[1].Name == "compact" {
				return true
			}
		}
		return false
	})
}

// TestACPServeScript: the script backend behind todosh acp: a lazy model
// is continued and stopped after 3 attempts without progress, each
// announced in a short chunk; its todo_write reaches the editor as plans.
func TestACPServeScript(t *testing.T) {
	h := newHome(t)
	e := startEditor(t, h, nil, "--agent", writeScript(t, lazyScript))
	id := e.newSession(false)
	e.mustPrompt(id, "go")
	text := e.text()
	for _, want := range []string{"Planning.", "todosh: continuing 1/3 — 1 open item", "todosh: continuing 3/3 — 1 open item", "todosh: stopped: 3 attempts without progress"} {
		if !strings.Contains(text, want) {
			t.Errorf("the editor's text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "continuing 4/3") {
		t.Errorf("continued past the cap:\n%s", text)
	}
	plans := e.plans()
	checkPlansDistinct(t, plans)
	if len(plans) != 2 || !e.lastPlanHas("completed write the parser") {
		t.Errorf("plans = %q, want the two lists of the script", plans)
	}
	// A /todo done finishes the list; the next prompt archives it.
	e.mustPrompt(id, "/todo done 2")
	e.waitFor("the finished list", func() bool { return e.lastPlanHas("completed write tests") })
}

// TestACPServeCancel: session/cancel during a continuation stops the turn
// and the continuation: the prompt answers cancelled, and the next prompt
// is served.
func TestACPServeCancel(t *testing.T) {
	r := newACP(t, "FAKEACP_LAZY=slow")
	e := startEditor(t, r.h, r.env, "--", fakeacp)
	id := e.newSession(false)
	type answer struct {
		r   acp.StopReason
		err error
	}
	answers := make(chan answer, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*deadline)
		defer cancel()
		res, err := e.conn.Prompt(ctx, acp.PromptRequest{SessionId: id, Prompt: []acp.ContentBlock{acp.TextBlock("[[plan]] build")}})
		answers <- answer{res.StopReason, err}
	}()
	e.waitFor("the slow continuation", func() bool { return strings.Contains(e.text(), "Continuing slowly.") })
	if err := e.conn.Cancel(context.Background(), acp.CancelNotification{SessionId: id}); err != nil {
		t.Fatal(err)
	}
	select {
	case a := <-answers:
		if a.err != nil || a.r != acp.StopReasonCancelled {
			t.Fatalf("cancelled prompt: %v %v, want stopReason cancelled", a.r, a.err)
		}
	case <-time.After(deadline):
		t.Fatal("the prompt did not end after session/cancel")
	}
	if strings.Contains(e.text(), "continuing 2/3") {
		t.Errorf("continued after the cancel:\n%s", e.text())
	}
	// With items open the next prompt would be continued (slowly) too.
	e.mustPrompt(id, "/todo clear")
	e.mustPrompt(id, "hello again")
	if !strings.Contains(e.text(), "echo: hello again") {
		t.Errorf("the prompt after the cancel was not served:\n%s", e.text())
	}
}

// TestACPServePermissionAndRelay: the inner agent's permission request goes
// to the editor, with the editor's session id; todosh's own MCP tools are
// approved by todosh (the editor is not asked) and their writes, made by
// another process, reach the editor as plans; thoughts and tool calls pass
// through; fs/read_text_file reaches the editor only when it offered it.
func TestACPServePermissionAndRelay(t *testing.T) {
	r := newACP(t)
	e := startEditor(t, r.h, r.env, "--", fakeacp)
	file := filepath.Join(r.h.dir, "notes.txt")
	e.files[file] = "the notes"
	id := e.newSession(true)

	e.mustPrompt(id, "[[perm]] list the files")
	if !strings.Contains(e.text(), "permission: allow") {
		t.Errorf("the agent did not get the editor's answer:\n%s", e.text())
	}
	e.mu.Lock()
	perms := append([]acp.RequestPermissionRequest(nil), e.perms...)
	e.mu.Unlock()
	if len(perms) != 1 || perms[0].SessionId != id || perms[0].ToolCall.Title == nil || *perms[0].ToolCall.Title != "Run ls -la" {
		t.Fatalf("permission requests = %+v, want one for Run ls -la in session %s", perms, id)
	}

	e.mustPrompt(id, "[[mcp]] keep the list")
	e.waitFor("the MCP tools' list", func() bool { return e.lastPlanHas("in_progress Parse quoted fields (1/2 subtasks)") })
	e.mu.Lock()
	asked := len(e.perms)
	e.mu.Unlock()
	if asked != 1 {
		t.Errorf("the editor was asked %d times, want once (todosh approves its own tools)", asked)
	}

	e.mustPrompt(id, "[[think]] look")
	e.mu.Lock()
	var thought, call, done bool
	for _, n := range e.updates {
		u := n.Update
		thought = thought || (u.AgentThoughtChunk != nil && u.AgentThoughtChunk.Content.Text != nil && u.AgentThoughtChunk.Content.Text.Text == "Thinking about the files.")
		call = call || (u.ToolCall != nil && u.ToolCall.ToolCallId == "call_t" && len(u.ToolCall.Content) == 1 && u.ToolCall.Kind == acp.ToolKindRead)
		done = done || (u.ToolCallUpdate != nil && u.ToolCallUpdate.ToolCallId == "call_t")
	}
	e.mu.Unlock()
	if !thought || !call || !done {
		t.Errorf("passed through: thought %v, tool call %v, its update %v; want all", thought, call, done)
	}

	e.mustPrompt(id, "[[fs]] "+file)
	if !strings.Contains(e.text(), "fs: the notes") {
		t.Errorf("fs/read_text_file did not reach the editor:\n%s", e.text())
	}
	// The editor's own stdio MCP server reaches the agent after todosh's.
	e2 := startEditor(t, r.h, r.env, "--", fakeacp)
	e2.mcp = []acp.McpServer{{Stdio: &acp.McpServerStdio{Name: "editor-tools", Command: "/bin/editor-tools", Args: []string{}, Env: []acp.EnvVariable{}}},
		{Http: &acp.McpServerHttpInline{Name: "remote", Type: "http", Url: "http://127.0.0.1:1/mcp", Headers: []acp.HttpHeader{}}}}
	id2 := e2.newSession(false)
	// The agent's session opens with the first prompt that needs it.
	e2.mustPrompt(id2, "[[fs]] "+file)
	var news []string
	for _, l := range strings.Split(r.received(t), "\n") {
		if strings.Contains(l, `"method":"session/new"`) {
			news = append(news, l)
		}
	}
	last := news[len(news)-1]
	if !strings.Contains(last, `"name":"todosh"`) || !strings.Contains(last, `"name":"editor-tools"`) || strings.Contains(last, "remote") {
		t.Errorf("the agent's session/new = %s, want todosh's and the editor's stdio server", last)
	}
	if !strings.Contains(e2.text(), "fs: not offered") {
		t.Errorf("fs offered to the agent by an editor that did not advertise it:\n%s", e2.text())
	}
}

// TestACPServeDyingAgent: an inner agent that dies mid-turn becomes a
// JSON-RPC error naming the cause in one line; the next prompt starts it
// again.
func TestACPServeDyingAgent(t *testing.T) {
	r := newACP(t)
	e := startEditor(t, r.h, r.env, "--", fakeacp)
	id := e.newSession(false)
	_, err := e.prompt(id, "[[die]] now")
	var re *acp.RequestError
	if !errors.As(err, &re) || !strings.Contains(re.Message, "fatal: the model exploded") || strings.Contains(re.Message, "\n") {
		t.Fatalf("dying agent: %v, want a one-line error with its stderr", err)
	}
	e.mustPrompt(id, "are you back")
	if !strings.Contains(e.text(), "echo: are you back") {
		t.Errorf("the agent was not started again:\n%s", e.text())
	}
	if n := strings.Count(r.received(t), `"method":"initialize"`); n != 2 {
		t.Errorf("%d initialize calls, want 2 (the process todosh's initialize probed, which the session then used, and a new one after the death)", n)
	}

	// The agent's own stop reason reaches the editor as it is, with why.
	for _, reason := range []acp.StopReason{acp.StopReasonMaxTokens, acp.StopReasonRefusal} {
		r, err := e.prompt(id, "[[stop:"+string(reason)+"]]")
		if err != nil || r != reason {
			t.Errorf("stop %s: %q %v, want the stop reason", reason, r, err)
		}
		if !strings.Contains(e.text(), "todosh: acp: the turn stopped: "+string(reason)) {
			t.Errorf("stop %s not explained:\n%s", reason, e.text())
		}
	}

	// Garbage from the agent is skipped and said in one line; the turn goes on.
	e.mustPrompt(id, "[[garbage]] now")
	if !strings.Contains(e.text(), "after garbage") || !strings.Contains(e.text(), "skipped 1 malformed message(s) from the agent") {
		t.Errorf("garbage from the agent:\n%s", e.text())
	}
}

// TestACPServeHungAgent: an agent that ignores session/cancel is ended
// with its child when the editor cancels; the prompt answers cancelled and
// the next one starts a new agent.
func TestACPServeHungAgent(t *testing.T) {
	skipIfShort(t, "waits the cancel grace of a hung agent")
	r := newACP(t)
	childFile := filepath.Join(r.h.dir, "child.pid")
	e := startEditor(t, r.h, append(r.env, "FAKEACP_CHILD="+childFile), "--", fakeacp)
	id := e.newSession(false)
	answers := make(chan acp.StopReason, 1)
	go func() {
		res, _ := e.prompt(id, "[[hang]]")
		answers <- res
	}()
	child := readPid(t, childFile)
	if err := e.conn.Cancel(context.Background(), acp.CancelNotification{SessionId: id}); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-answers:
		if r != acp.StopReasonCancelled {
			t.Fatalf("hung prompt after cancel: %q, want cancelled", r)
		}
	case <-time.After(deadline):
		t.Fatal("the hung prompt did not end after session/cancel")
	}
	waitGone(t, "the hung agent's child", child)
	e.mustPrompt(id, "fresh start")
	if !strings.Contains(e.text(), "echo: fresh start") {
		t.Errorf("no new agent after the hang:\n%s", e.text())
	}
}

// TestACPServeAgentCannotStart: the agent starts with the first prompt
// that needs it, so session/new answers and /todo works; that prompt fails
// with the agent's own one-line cause, and todosh goes on serving.
func TestACPServeAgentCannotStart(t *testing.T) {
	r := newACP(t, "FAKEACP_FAIL=session/new")
	e := startEditor(t, r.h, r.env, "--", fakeacp)
	id := e.newSession(false)
	e.mustPrompt(id, `/todo add "still here"`)
	for range 2 {
		_, err := e.prompt(id, "hello")
		var re *acp.RequestError
		if !errors.As(err, &re) || !strings.Contains(re.Message, "fatal: no API key configured") {
			t.Fatalf("a prompt with a failing agent: %v, want its stderr's cause", err)
		}
	}
	r.h.assertList(t, string(id), "still here")
}

// TestACPServeLoad: a second todosh acp loads the session: the plan is
// replayed before session/load answers.
func TestACPServeLoad(t *testing.T) {
	r := newACP(t)
	e := startEditor(t, r.h, r.env, "--", fakeacp)
	id := e.newSession(false)
	e.mustPrompt(id, "[[plan]] build")
	e.in.Close()
	<-e.done

	e2 := startEditor(t, r.h, r.env, "--", fakeacp)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	if _, err := e2.conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	if _, err := e2.conn.LoadSession(ctx, acp.LoadSessionRequest{SessionId: id, Cwd: r.h.dir, McpServers: []acp.McpServer{}}); err != nil {
		t.Fatalf("session/load: %v", err)
	}
	if !e2.lastPlanHas("completed Write unit tests for the parser") {
		t.Errorf("plan not replayed before the answer: %q", e2.plans())
	}
	_, err := e2.conn.LoadSession(ctx, acp.LoadSessionRequest{SessionId: "no-such-session", Cwd: r.h.dir, McpServers: []acp.McpServer{}})
	var re *acp.RequestError
	if !errors.As(err, &re) || re.Code != -32602 {
		t.Errorf("loading an unknown session: %v, want invalid params", err)
	}
	if b, _ := json.Marshal(re); strings.Contains(string(b), r.h.root) {
		t.Errorf("the error names the store's path: %s", b)
	}
}

// TestACPServeGarbage: malformed messages from the editor get JSON-RPC
// error replies and todosh goes on serving; stdin closing ends it, and
// the inner agent with its children, with status 0.
func TestACPServeGarbage(t *testing.T) {
	r := newACP(t)
	pidFile, childFile := filepath.Join(r.h.dir, "agent.pid"), filepath.Join(r.h.dir, "child.pid")
	cmd := exec.Command(binary, "acp", "--", fakeacp)
	cmd.Env = append(r.h.env(), append(r.env, "FAKEACP_PID="+pidFile, "FAKEACP_CHILD="+childFile)...)
	cmd.Dir = r.h.dir
	in, out, _ := startPiped(t, cmd)
	replies := make(chan map[string]any, 100)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				replies <- m
			}
		}
		close(replies)
	}()
	// next is the next reply with an id or an error (updates skipped).
	next := func() map[string]any {
		t.Helper()
		for {
			select {
			case m, ok := <-replies:
				if !ok {
					t.Fatal("todosh acp closed its output")
				}
				if _, isReq := m["method"]; !isReq {
					return m
				}
			case <-time.After(deadline):
				t.Fatal("no reply")
			}
		}
	}
	code := func(m map[string]any) float64 {
		e, _ := m["error"].(map[string]any)
		c, _ := e["code"].(float64)
		return c
	}
	for _, c := range []struct {
		line string
		code float64
		id   any
	}{
		{"this is not json{", -32700, nil},
		{"[1,2,3]", -32600, nil},
		{`{"jsonrpc":"2.0"}`, -32600, nil},
		{`{"jsonrpc":"2.0","id":7,"method":5}`, -32600, 7.0},
		{`{"jsonrpc":"2.0","id":8,"method":"no/such"}`, -32601, 8.0},
		{`{"jsonrpc":"2.0","id":9,"method":"session/prompt","params":{"sessionId":"nope","prompt":[]}}`, -32602, 9.0},
		{`{"jsonrpc":"2.0","id":10,"method":"session/new","params":{"cwd":"relative","mcpServers":[]}}`, -32602, 10.0},
		{`{"jsonrpc":"1.0","id":20,"method":"initialize","params":{"protocolVersion":1}}`, -32600, 20.0},
		{`{"id":21,"method":"initialize","params":{"protocolVersion":1}}`, -32600, 21.0},
		{`{"jsonrpc":"2.0","id":22,"method":"authenticate","params":{"methodId":"oauth"}}`, -32602, 22.0},
		{`{"jsonrpc":"2.0","id":23,"method":"session/close","params":{"sessionId":"nope"}}`, -32602, 23.0},
	} {
		io.WriteString(in, c.line+"\n")
		m := next()
		if code(m) != c.code || m["id"] != c.id {
			t.Errorf("%s: reply %v, want code %v and id %v", c.line, m, c.code, c.id)
		}
	}
	io.WriteString(in, `{"jsonrpc":"2.0","id":11,"method":"initialize","params":{"protocolVersion":1}}`+"\n")
	if m := next(); m["result"] == nil {
		t.Fatalf("initialize after garbage: %v", m)
	}
	io.WriteString(in, `{"jsonrpc":"2.0","id":12,"method":"session/new","params":{"cwd":"`+r.h.dir+`","mcpServers":[]}}`+"\n")
	m := next()
	res, _ := m["result"].(map[string]any)
	sid, _ := res["sessionId"].(string)
	if sid == "" {
		t.Fatalf("session/new: %v", m)
	}
	// The command list with todo comes after the answer that names the
	// session (an editor drops updates of sessions it does not know yet).
	for found := false; !found; {
		select {
		case u := <-replies:
			params, _ := u["params"].(map[string]any)
			up, _ := params["update"].(map[string]any)
			cmds, _ := up["availableCommands"].([]any)
			if len(cmds) > 0 && params["sessionId"] == sid {
				first, _ := cmds[0].(map[string]any)
				found = first["name"] == "todo"
			}
		case <-time.After(deadline):
			t.Fatal("no available_commands_update after session/new's answer")
		}
	}
	// An agent that hangs with a child: closing stdin ends both.
	io.WriteString(in, `{"jsonrpc":"2.0","id":13,"method":"session/prompt","params":{"sessionId":"`+sid+`","prompt":[{"type":"text","text":"[[hang]]"}]}}`+"\n")
	agentPid, childPid := readPid(t, pidFile), readPid(t, childFile)
	in.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("todosh acp after stdin closed: %v, want exit 0", err)
		}
	case <-time.After(deadline):
		cmd.Process.Kill()
		t.Fatal("todosh acp did not exit when stdin closed")
	}
	waitGone(t, "the agent", agentPid)
	waitGone(t, "the agent's child", childPid)
}

// TestACPServeNoAgent: without an agent /todo still works, and a prompt
// fails with a line that says how to connect one.
func TestACPServeNoAgent(t *testing.T) {
	h := newHome(t)
	e := startEditor(t, h, nil)
	id := e.newSession(false)
	e.mustPrompt(id, `/todo add "write the docs"`)
	e.waitFor("the plan", func() bool { return e.lastPlanHas("pending write the docs") })
	_, err := e.prompt(id, "hello")
	var re *acp.RequestError
	if !errors.As(err, &re) || !strings.Contains(re.Message, "no agent is connected") || !strings.Contains(re.Message, "--agent") {
		t.Errorf("a prompt without an agent: %v", err)
	}
	e.mustPrompt(id, "/todo nonsense")
	if !strings.Contains(e.text(), `/todo: unknown subcommand "nonsense"`) {
		t.Errorf("a bad /todo is not answered with its error:\n%s", e.text())
	}
	h.assertList(t, string(id), "write the docs")
}

// TestACPServeEditorMCPServers: todosh acp advertises MCP over http and
// sse to the editor only as far as the inner agent's own initialize does,
// passes the editor's servers of those transports (and stdio) on in the
// agent's session/new, and says once, with the first prompt, which it did
// not pass; a backend that is not an ACP agent takes none of them.
func TestACPServeEditorMCPServers(t *testing.T) {
	servers := []acp.McpServer{
		{Stdio: &acp.McpServerStdio{Name: "editor-tools", Command: "/bin/editor-tools", Args: []string{}, Env: []acp.EnvVariable{}}},
		{Http: &acp.McpServerHttpInline{Name: "docs", Type: "http", Url: "http://127.0.0.1:18299/docs", Headers: []acp.HttpHeader{{Name: "X-Key", Value: "k"}}}},
		{Sse: &acp.McpServerSseInline{Name: "logs", Type: "sse", Url: "http://127.0.0.1:18299/logs", Headers: []acp.HttpHeader{}}},
	}
	for _, tc := range []struct {
		name      string
		args      []string
		mcp       string // FAKEACP_MCP
		http, sse bool   // advertised to the editor
		passed    []string
		notPassed []string
		note      string
	}{
		{"agent takes http", []string{"--", fakeacp}, "http", true, false,
			[]string{`"name":"editor-tools"`, `"url":"http://127.0.0.1:18299/docs"`, `"X-Key"`}, []string{`"logs"`},
			`todosh: the editor's MCP server "logs" (sse) not passed to acp: it takes only stdio and http servers`},
		{"agent takes http and sse", []string{"--", fakeacp}, "http,sse", true, true,
			[]string{`"name":"editor-tools"`, `"name":"docs"`, `"type":"sse"`, `"name":"logs"`}, nil, ""},
		{"agent takes stdio only", []string{"--", fakeacp}, "", false, false,
			[]string{`"name":"editor-tools"`}, []string{`"docs"`, `"logs"`},
			`todosh: the editor's MCP servers "docs" (http) and "logs" (sse) not passed to acp: it takes only stdio servers`},
		{"not an ACP agent", []string{"--agent", "demo"}, "http,sse", false, false, nil, nil,
			`todosh: the editor's MCP servers "editor-tools" (stdio), "docs" (http) and "logs" (sse) not passed to demo: only an ACP agent (--agent acp...) takes an editor's MCP servers`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newACP(t, "FAKEACP_MCP="+tc.mcp)
			e := startEditor(t, r.h, r.env, tc.args...)
			ctx, cancel := context.WithTimeout(context.Background(), deadline)
			defer cancel()
			init, err := e.conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber})
			if err != nil {
				t.Fatalf("initialize: %v", err)
			}
			if got := init.AgentCapabilities.McpCapabilities; got.Http != tc.http || got.Sse != tc.sse || got.Acp {
				t.Errorf("mcpCapabilities = %+v, want http %v sse %v", got, tc.http, tc.sse)
			}
			s, err := e.conn.NewSession(ctx, acp.NewSessionRequest{Cwd: r.h.dir, McpServers: servers})
			if err != nil {
				t.Fatalf("session/new: %v", err)
			}
			e.mustPrompt(s.SessionId, "hello")
			e.mustPrompt(s.SessionId, "hello again")
			if tc.passed != nil {
				var last string
				for _, l := range strings.Split(r.received(t), "\n") {
					if strings.Contains(l, `"method":"session/new"`) {
						last = l
					}
				}
				for _, w := range append(tc.passed, `"name":"todosh"`) {
					if !strings.Contains(last, w) {
						t.Errorf("the agent's session/new lacks %s: %s", w, last)
					}
				}
				for _, w := range tc.notPassed {
					if strings.Contains(last, w) {
						t.Errorf("the agent's session/new has %s: %s", w, last)
					}
				}
			}
			text := e.text()
			switch {
			case tc.note == "" && strings.Contains(text, "not passed"):
				t.Errorf("a notice though every server was passed:\n%s", text)
			case tc.note != "" && strings.Count(text, tc.note) != 1:
				t.Errorf("want the notice once, %q:\n%s", tc.note, text)
			}
		})
	}
}
