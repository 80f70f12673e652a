package e2e_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/todosh/todosh/internal/procgroup"
)

// acpRun is one todosh run with the fake ACP agent.
type acpRun struct {
	h   home
	log string // every line the agent received
	env []string
}

func newACP(t testing.TB, env ...string) acpRun {
	h := newHome(t)
	log := filepath.Join(h.dir, "acp.log")
	return acpRun{h: h, log: log, env: append([]string{"FAKEACP_LOG=" + log}, env...)}
}

// args are todosh's arguments for the fake agent, then extra ones.
func (r acpRun) args(extra ...string) []string {
	return append([]string{"--agent", "acp", "--agent-bin", fakeacp, "--continue-delay", "0"}, extra...)
}

// script runs todosh as a script with the fake agent.
func (r acpRun) script(t *testing.T, extra ...string) result {
	t.Helper()
	return r.run(t, r.args(extra...)...)
}

// run runs todosh as a script with args.
func (r acpRun) run(t *testing.T, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(r.h.env(), r.env...)
	cmd.Dir = r.h.dir
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("run todosh: %v", err)
	}
	return result{code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errOut.String()}
}

// received is what the agent was sent, one JSON-RPC message a line.
func (r acpRun) received(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile(r.log)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestACPPlanContinuation: the plan is mirrored into the list, a lazy
// end_turn is continued by another session/prompt to the same process,
// and the agent's session id is kept in the session file.
func TestACPPlanContinuation(t *testing.T) {
	r := newACP(t)
	res := r.script(t, "--session", "a1", "-c", "[[plan]] build csvkit-lite", "-c", "/todo show")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	wantOutput(t, res.stdout, "I'll break this work into a todo list first.", "continuing 1/3 — 2 open items", "all done", "3. ✓ Write unit tests for the parser")
	r.h.assertList(t, "a1", "Create project skeleton for csvkit-lite", "Implement CSV parser with quoted-field support", "Write unit tests for the parser")
	got := r.received(t)
	if n := strings.Count(got, `"method":"initialize"`); n != 1 {
		t.Errorf("%d initialize calls, want 1 (one agent process per run)", n)
	}
	if n := strings.Count(got, `"method":"session/prompt"`); n != 3 {
		t.Errorf("%d session/prompt calls, want 3 (the prompt and two continuations)", n)
	}
	if !strings.Contains(got, `"protocolVersion":1`) {
		t.Errorf("initialize without protocol 1:\n%s", got)
	}
	s, err := r.h.store().Load("a1")
	if err != nil || s.Agent == nil || s.Agent.Kind != "acp" || !strings.HasPrefix(s.Agent.Session, "fake-") {
		t.Errorf("agent session not kept: %+v %v", s.Agent, err)
	}
	// The continuation names todosh's todo tools (the agent has the MCP server).
	if !strings.Contains(got, "todo_write") {
		t.Errorf("continuation prompt does not name todo_write:\n%s", got)
	}
}

// TestACPMCPServer: session/new hands todosh's own MCP server (this binary,
// mcp, the session id) as a stdio entry without a type field, and an agent
// that uses it keeps the list, ticks and pauses.
func TestACPMCPServer(t *testing.T) {
	r := newACP(t)
	res := r.script(t, "--session", "m2", "-c", "[[mcp]] use the tools", "-c", "/todo show")
	if !strings.Contains(res.stdout, "mcp__todosh__todo_write") || !strings.Contains(res.stdout, "1.1 [x] double quotes") {
		t.Errorf("todosh's tools through MCP not shown:\n%s\n%s", res.stdout, res.stderr)
	}
	r.h.assertList(t, "m2", "Parse quoted fields", "Write the README")
	got := r.received(t)
	line := got[strings.Index(got, `"method":"session/new"`):]
	line = line[:strings.Index(line, "\n")]
	if !strings.Contains(line, `"args":["mcp","--session","m2"]`) || !strings.Contains(line, `"name":"todosh"`) || strings.Contains(line, `"type"`) {
		t.Errorf("session/new does not hand todosh's MCP server as a stdio entry without type:\n%s", line)
	}
	// The first prompt of an agent that keeps no list of its own asks for todosh's tools.
	if !strings.Contains(got, `the MCP server \"todosh\"`) {
		t.Errorf("first prompt does not ask for todosh's tools:\n%s", got)
	}

	res = r.script(t, "--session", "m2", "-c", "[[mcp-pause]] ask me")
	if !strings.Contains(res.stdout, `stopped: paused — "Which CSV dialect should I support?"`) {
		t.Errorf("todo_pause through MCP did not stop the turn:\n%s\n%s", res.stdout, res.stderr)
	}
}

// TestACPMCPLazyCount: an agent that keeps its list through todosh's MCP
// server, as Gemini CLI does over ACP, and marks items done without
// working: the continuation counts as done without a receipt the items
// /todo show marks so (it said 2 of 3: the first list of the turn, written
// by another process, was never seen).
func TestACPMCPLazyCount(t *testing.T) {
	r := newACP(t, "FAKEACP_PLAYS=gemini", "FAKEACP_NOCALL=1", "FAKEACP_WORK=0")
	res := r.script(t, "--session", "g1", "-c", "[[mcp-plan]] build csvkit-lite", "-c", "/todo show")
	for _, want := range []string{"continuing 1/3 — 2 open items", "continuing 3/3 — 3 items done without a receipt", "stopped: 3 attempts without progress"} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("output lacks %q:\n%s\n%s", want, res.stdout, res.stderr)
		}
	}
	if n := strings.Count(res.stdout, "(reported, no receipt)"); n != 3 {
		t.Errorf("/todo show marks %d items reported without a receipt, want 3:\n%s", n, res.stdout)
	}
}

// TestACPApprove: in a script a permission request is refused and the
// refusal is one line naming the agent; --approve always allows it with
// the agent's "always" option.
func TestACPApprove(t *testing.T) {
	r := newACP(t)
	res := r.script(t, "-c", "[[perm]] list files")
	if !strings.Contains(res.stdout, "refused (no terminal to ask; --approve always allows): Claude Agent wants permission: Run ls -la (execute)") ||
		!strings.Contains(res.stdout, "permission: reject") || !strings.Contains(res.stdout, "Run ls -la failed") {
		t.Errorf("default refusal:\n%s\n%s", res.stdout, res.stderr)
	}
	res = r.script(t, "--approve", "always", "-c", "[[perm]] list files")
	// The agent's "always" option: it does not ask again.
	if !strings.Contains(res.stdout, "allowed (--approve always, Always Allow): Claude Agent wants permission") || !strings.Contains(res.stdout, "permission: allow_always\n") {
		t.Errorf("--approve always:\n%s\n%s", res.stdout, res.stderr)
	}
	res = r.script(t, "--approve", "never", "-c", "[[perm]] list files")
	if !strings.Contains(res.stdout, "refused (--approve never)") || !strings.Contains(res.stdout, "permission: reject") {
		t.Errorf("--approve never:\n%s\n%s", res.stdout, res.stderr)
	}
}

// TestACPAskInTerminal: in a terminal the person is asked on one line and
// answers by key; Ctrl-C at the question refuses and cancels the turn.
func TestACPAskInTerminal(t *testing.T) {
	r := newACP(t)
	tm := r.h.startProgram(t, binary, r.env, r.args()...)
	tm.expect("› ")
	tm.typ("[[perm]] list files\r")
	tm.expect("Claude Agent wants permission: Run ls -la (execute) — [1] Always Allow [2] Allow [3] Reject")
	tm.typ("2")
	tm.expect("permission: allow\n")
	tm.expect("› ")
	tm.typ("[[perm]] again\r")
	tm.expect("[3] Reject")
	tm.typ(ctrlC)
	tm.expect("turn cancelled")
	tm.expect("› ")
	// The same agent process answers the next prompt.
	tm.run("hello there")
	if n := strings.Count(r.received(t), `"method":"initialize"`); n != 1 {
		t.Errorf("%d agent processes, want 1", n)
	}
	if !strings.Contains(r.received(t), `"method":"session/cancel"`) {
		t.Errorf("no session/cancel after Ctrl-C at the question")
	}
	tm.quit()
}

// TestACPCancel: Ctrl-C sends session/cancel, the agent answers cancelled,
// and the same process serves the next prompt.
func TestACPCancel(t *testing.T) {
	r := newACP(t)
	tm := r.h.startProgram(t, binary, r.env, r.args()...)
	tm.expect("› ")
	tm.typ("[[slow]] take your time\r")
	tm.expect("working on it")
	tm.typ(ctrlC)
	tm.expect("turn cancelled")
	tm.expect("› ")
	out := tm.run("and now?")
	if !strings.Contains(out, "echo: and now?") {
		t.Errorf("next prompt after cancel:\n%s", out)
	}
	got := r.received(t)
	if !strings.Contains(got, `"method":"session/cancel"`) || strings.Count(got, `"method":"initialize"`) != 1 {
		t.Errorf("want one process and a session/cancel:\n%s", got)
	}
	tm.quit()
}

// alive reports whether pid is a live process (a zombie is not).
func alive(pid int) bool { return procgroup.Running(pid) }

// waitGone waits for pid to end; the bound only stops a hang.
func waitGone(t *testing.T, what string, pid int) {
	t.Helper()
	end := time.Now().Add(deadline)
	for alive(pid) {
		if time.Now().After(end) {
			t.Fatalf("%s (pid %d) still runs", what, pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	end := time.Now().Add(deadline)
	for {
		b, err := os.ReadFile(path)
		if n, perr := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && perr == nil {
			return n
		}
		if time.Now().After(end) {
			t.Fatalf("no pid in %s", path)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestACPHungAgentKilled: an agent that ignores session/cancel has its whole
// process group ended (its child too); the next prompt starts a new agent,
// which reopens nothing it cannot (the fake advertises no load) and works.
func TestACPHungAgentKilled(t *testing.T) {
	r := newACP(t)
	child, pidFile := filepath.Join(r.h.dir, "child"), filepath.Join(r.h.dir, "pid")
	r.env = append(r.env, "FAKEACP_CHILD="+child, "FAKEACP_PID="+pidFile)
	tm := r.h.startProgram(t, binary, r.env, r.args()...)
	tm.expect("› ")
	tm.typ("[[hang]] forever\r")
	tm.expect("hanging now")
	agentPid, childPid := readPid(t, pidFile), readPid(t, child)
	tm.typ(ctrlC)
	tm.expect("turn cancelled")
	tm.expect("› ")
	waitGone(t, "the hung agent", agentPid)
	waitGone(t, "the agent's child", childPid)
	out := tm.run("are you back?")
	if !strings.Contains(out, "echo: are you back?") {
		t.Errorf("a new agent did not answer:\n%s", out)
	}
	tm.quit()
}

// TestACPNoOrphans: todosh's exit and SIGTERM end the agent's process group.
func TestACPNoOrphans(t *testing.T) {
	r := newACP(t)
	pidFile := filepath.Join(r.h.dir, "pid")
	r.env = append(r.env, "FAKEACP_PID="+pidFile)
	tm := r.h.startProgram(t, binary, r.env, r.args()...)
	tm.expect("› ")
	tm.run("hello")
	pid := readPid(t, pidFile)
	tm.quit()
	waitGone(t, "the agent after Ctrl-D", pid)

	os.Remove(pidFile)
	child := filepath.Join(r.h.dir, "child")
	r.env = append(r.env, "FAKEACP_CHILD="+child)
	tm = r.h.startProgram(t, binary, r.env, r.args()...)
	tm.expect("› ")
	tm.typ("[[hang]] forever\r")
	tm.expect("hanging now")
	pid, childPid := readPid(t, pidFile), readPid(t, child)
	tm.cmd.Process.Signal(syscall.SIGTERM)
	tm.wait()
	waitGone(t, "the agent after SIGTERM", pid)
	waitGone(t, "the agent's child after SIGTERM", childPid)
}

// TestACPResume: --resume reopens the agent's session with session/resume
// or session/load when advertised; a load's replay does not touch the list.
func TestACPResume(t *testing.T) {
	for _, c := range []struct{ caps, method, late string }{{"resume", "session/resume", ""}, {"load", "session/load", ""}, {"load", "session/load", "1"}, {"", "session/new", ""}} {
		t.Run(c.method+c.late, func(t *testing.T) {
			r := newACP(t, "FAKEACP_CAPS="+c.caps, "FAKEACP_LAZY=1", "FAKEACP_REPLAY_LATE="+c.late)
			res := r.script(t, "--no-continue", "-c", "[[plan]] start")
			if res.code != 3 { // stopped with open items
				t.Fatalf("run 1: %+v", res)
			}
			s, _ := r.h.store().MostRecentIn(r.h.dir)
			first, _ := r.h.store().Load(s)
			os.Remove(r.log)
			res = r.script(t, "--resume", "--no-continue", "-c", "what next?")
			if res.code != 4 { // the fake agent's reply ends with a question
				t.Fatalf("run 2: %+v", res)
			}
			// The replayed history is not printed as new text: one line
			// says it was there.
			for _, old := range []string{"earlier prompt", "An old reply", "update_plan", "Replayed item"} {
				if strings.Contains(res.stdout, old) {
					t.Errorf("run 2 printed the replayed %q:\n%s", old, res.stdout)
				}
			}
			if c.method == "session/load" && !strings.Contains(res.stdout, "acp: resumed: 2 earlier messages") {
				t.Errorf("run 2 does not say it resumed:\n%s", res.stdout)
			}
			got := r.received(t)
			if !strings.Contains(got, `"method":"`+c.method+`"`) {
				t.Errorf("run 2 did not use %s:\n%s", c.method, got)
			}
			if c.method != "session/new" && !strings.Contains(got, `"sessionId":"`+first.Agent.Session+`"`) {
				t.Errorf("run 2 did not reopen %s:\n%s", first.Agent.Session, got)
			}
			r.h.assertList(t, s, "Create project skeleton for csvkit-lite", "Implement CSV parser with quoted-field support", "Write unit tests for the parser")
			// Without a way to reopen, the open items go in the first prompt.
			if c.method == "session/new" && !strings.Contains(got, "2 open items") {
				t.Errorf("new session without the open items in its prompt:\n%s", got)
			}
		})
	}
}

// TestACPFailures: each failure is one line, the list is untouched, and the
// shell goes on (the next prompt starts a new agent).
func TestACPFailures(t *testing.T) {
	cases := []struct {
		name, env, prompt, want string
	}{
		{"initialize", "FAKEACP_FAIL=initialize", "hi", "acp: initialize failed: Internal error (Query closed before response received); stderr: Error: --dangerously-skip-permissions cannot be used with root/sudo privileges"},
		{"session/new", "FAKEACP_FAIL=session/new", "hi", "acp: session/new failed: Internal error (Query closed before response received); stderr: fatal: no API key configured"},
		{"dies", "", "[[die]] now", "acp: the agent stopped mid-turn: fakeacp (pid *) ended (exit status 3); stderr: fatal: the model exploded"},
		{"huge", "", "[[huge]] now", "acp: the agent stopped mid-turn: the agent sent a message over the limit of 10 MiB"},
		{"max_tokens", "", "[[stop:max_tokens]]", "acp: the turn stopped: max_tokens"},
		{"refusal", "", "[[stop:refusal]]", "acp: the turn stopped: refusal"},
		{"max_turn_requests", "", "[[stop:max_turn_requests]]", "acp: the turn stopped: max_turn_requests"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newACP(t, c.env)
			if res := r.script(t, "--session", "f1", "-c", "/todo add keep me"); res.code != 0 {
				t.Fatal(res)
			}
			res := r.script(t, "--session", "f1", "-c", c.prompt, "-c", "/todo show")
			if res.code != 1 || !containsInOrder(res.stderr, strings.Split(c.want, "*")...) || countLines(res.stderr) != 1 {
				t.Errorf("want exit 1 and one line containing %q; got %d:\nstdout:\n%s\nstderr:\n%s", c.want, res.code, res.stdout, res.stderr)
			}
			if !strings.Contains(res.stdout, "1. ○ keep me") {
				t.Errorf("the shell did not go on to /todo show:\n%s", res.stdout)
			}
			r.h.assertList(t, "f1", "keep me")
		})
	}
	// A missing binary.
	h := newHome(t)
	res := h.script(t, h.dir, "", "--agent", "acp", "--agent-bin", "/nonexistent/agent", "-c", "hi")
	if res.code != 1 || !strings.Contains(res.stderr, "acp: /nonexistent/agent not found: install it, or give its path with --agent-bin") || countLines(res.stderr) != 1 {
		t.Errorf("missing binary: %+v", res)
	}
	// A malformed line is skipped; the turn goes on.
	r := newACP(t)
	res = r.script(t, "-c", "[[garbage]] x")
	if res.code != 0 || !strings.Contains(res.stdout, "after garbage") || !strings.Contains(res.stdout, "acp: skipped 1 malformed message(s) from the agent") ||
		res.stderr != "" || strings.Contains(res.stdout, "future_kind") {
		t.Errorf("malformed line: %+v", res)
	}
}

// containsInOrder reports whether s holds each of parts, in order.
func containsInOrder(s string, parts ...string) bool {
	for _, p := range parts {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return true
}
