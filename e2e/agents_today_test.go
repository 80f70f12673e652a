package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/todosh/todosh/internal/testenv"
)

// These tests drive the built todosh against the fake ACP agent speaking
// each real agent's shapes (FAKEACP_PLAYS): codex-acp's approval request
// for an MCP tool, Gemini's write_todos seen only as a title, the
// agent's name in permission lines, and the Claude variable.

// presetRun runs todosh as a script with --agent name played by the fake
// ACP agent, in home h, with env added to the test's environment.
func presetRun(t *testing.T, h home, name string, env []string, extra ...string) result {
	t.Helper()
	r := acpRun{h: h, env: env}
	args := append([]string{"--agent", name, "--agent-bin", fakeacp, "--continue-delay", "0"}, extra...)
	return r.run(t, args...)
}

// TestACPOwnToolsApproved: todosh answers each agent's permission request
// for its own MCP tools itself, with the session-wide option, in a script
// whose --approve is the default: no refusal, no question, the list kept.
func TestACPOwnToolsApproved(t *testing.T) {
	cases := []struct {
		agent, plays, spelled, answers string
	}{
		{"acp:codex", "codex", "mcp__todosh__todo_write", "approved-for-session"},
		{"acp:gemini", "gemini", "mcp_todosh_todo_write", "proceed_always_server"},
		{"acp:claude", "claude", "mcp__todosh__todo_write", "allow_always"},
	}
	for _, c := range cases {
		t.Run(c.plays, func(t *testing.T) {
			h := newHome(t)
			log := filepath.Join(h.dir, "acp.log")
			res := presetRun(t, h, c.agent, []string{"FAKEACP_PLAYS=" + c.plays, "FAKEACP_LOG=" + log}, "--session", "o1", "-c", "[[mcp]] use the tools")
			// 3: the fake leaves the list open, and the continuations stop.
			if res.code != 3 || strings.Contains(res.stdout, "refused") || strings.Contains(res.stdout, "wants permission") {
				t.Fatalf("exit %d; a question or refusal for todosh's own tool:\n%s\n%s", res.code, res.stdout, res.stderr)
			}
			if !strings.Contains(res.stdout, "permission answers: "+c.answers+".") {
				t.Errorf("want the one answer %s:\n%s", c.answers, res.stdout)
			}
			h.assertList(t, "o1", "Parse quoted fields", "Write the README")
			// The first prompt names the tools as this agent spells them.
			sent, _ := os.ReadFile(log)
			if c.plays == "gemini" && !strings.Contains(string(sent), "- "+c.spelled+": Replace the whole todo list") {
				t.Errorf("the first prompt does not name %s:\n%s", c.spelled, sent)
			}
		})
	}
}

// TestACPContinuationSpelling: a continuation prompt names todosh's tools
// as the agent sees them, and one open item reads in the singular.
func TestACPContinuationSpelling(t *testing.T) {
	h := newHome(t)
	log := filepath.Join(h.dir, "acp.log")
	res := presetRun(t, h, "acp:codex", []string{"FAKEACP_PLAYS=codex", "FAKEACP_LOG=" + log, "FAKEACP_LAZY=1"}, "--session", "c1", "-c", "[[plan]] build it")
	if res.code != 3 { // 3 attempts without progress
		t.Fatalf("exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	sent, _ := os.ReadFile(log)
	for _, want := range []string{"mcp__todosh__todo_write", "2 open items remain."} {
		if !strings.Contains(string(sent), want) {
			t.Errorf("continuation prompts lack %q:\n%s", want, sent)
		}
	}
	if strings.Contains(string(sent), " with todo_write") {
		t.Errorf("a prompt names the bare todo_write, which Codex does not see:\n%s", sent)
	}
}

// TestACPGeminiOwnList: Gemini's write_todos reaches todosh only as a
// title; the line shows once, and one notice says why the list is empty
// and what todosh asked instead. Where the call carries its items, they
// are the list.
func TestACPGeminiOwnList(t *testing.T) {
	h := newHome(t)
	res := presetRun(t, h, "acp:gemini", []string{"FAKEACP_PLAYS=gemini"}, "--approve", "always", "--session", "g1", "-c", "[[plan]] build it")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	if n := strings.Count(res.stdout, "Set 3 todo(s)"); n != 1 {
		t.Errorf("the write_todos line shows %d times, want once:\n%s", n, res.stdout)
	}
	if n := strings.Count(res.stdout, "its own todo list never reaches todosh"); n != 1 || !strings.Contains(res.stdout, "keep the todo list with todosh's todo tools") {
		t.Errorf("want one notice naming todosh's tool:\n%s", res.stdout)
	}
	if !strings.Contains(res.stdout, "gemini-cli wants permission: Set 3 todo(s)") {
		t.Errorf("the permission line does not name the agent:\n%s", res.stdout)
	}

	h = newHome(t)
	res = presetRun(t, h, "acp:gemini", []string{"FAKEACP_PLAYS=gemini", "FAKEACP_RAW=1", "FAKEACP_LAZY=1"}, "--approve", "always", "--session", "g2", "-c", "[[plan]] build it")
	// The items it set are the list; the lazy fake then makes no progress.
	if !strings.Contains(res.stdout, "new list: 3 items") || strings.Contains(res.stdout, "never reaches todosh") {
		t.Fatalf("exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	h.assertList(t, "g2", "Create project skeleton for csvkit-lite", "Implement CSV parser with quoted-field support", "Write unit tests for the parser")
}

// TestACPClaudeVariable: claude-agent-acp gets CLAUDE_CODE_ENABLE_TODO_TOOLS=1
// unless the person set it; other agents do not.
func TestACPClaudeVariable(t *testing.T) {
	cases := []struct {
		agent, person, want string
	}{
		{"acp:claude", "", "1"},
		{"acp:claude", "0", "0"},
		{"acp:codex", "", "(unset)"},
	}
	for _, c := range cases {
		h := newHome(t)
		file := filepath.Join(h.dir, "env")
		env := []string{"FAKEACP_ENV=" + file}
		if c.person != "" {
			env = append(env, "CLAUDE_CODE_ENABLE_TODO_TOOLS="+c.person)
		}
		if res := presetRun(t, h, c.agent, env, "-c", "hello"); res.code != 0 {
			t.Fatalf("%s: exit %d\n%s\n%s", c.agent, res.code, res.stdout, res.stderr)
		}
		if got, _ := os.ReadFile(file); string(got) != c.want {
			t.Errorf("%s with the person's %q: the agent got %q, want %q", c.agent, c.person, got, c.want)
		}
	}
}

// TestACPLauncher: an agent behind a launcher is reported by the process
// that died: codex-acp's node launcher is skipped for its binary, so a
// dead agent's own exit status shows; a launcher todosh does not know is
// watched, and killing it ends the agent it left running at once.
func TestACPLauncher(t *testing.T) {
	testenv.NeedShell(t)
	skipIfShort(t, "waits for a killed launcher")
	// codex-acp's layout: the launcher script exits 0 whatever its binary did.
	h := newHome(t)
	mods := filepath.Join(h.dir, "node_modules", "@zed-industries")
	script := filepath.Join(mods, "codex-acp", "bin", "codex-acp.js")
	native := filepath.Join(mods, "codex-acp-linux-x64", "bin", "codex-acp")
	for _, d := range []string{filepath.Dir(script), filepath.Dir(native)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(script, []byte("#!/bin/sh\n\""+native+"\" \"$@\"\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(fakeacp, native); err != nil {
		t.Fatal(err)
	}
	res := presetRun(t, h, "acp:codex", []string{"FAKEACP_PLAYS=codex"}, "--agent-bin", script, "-c", "[[die]] now")
	if res.code != 1 || !containsInOrder(res.stderr, "acp:codex: the agent stopped mid-turn: codex-acp (pid ", ") ended (exit status 3); stderr: fatal: the model exploded") {
		t.Errorf("want the binary's own exit status:\n%s\n%s", res.stdout, res.stderr)
	}

	// An unknown launcher that waits for its agent: kill it mid-turn.
	h = newHome(t)
	launcher := filepath.Join(h.dir, "launch.sh")
	pidFile, childFile := filepath.Join(h.dir, "launcher.pid"), filepath.Join(h.dir, "agent.pid")
	if err := os.WriteFile(launcher, []byte("#!/bin/sh\necho $$ > "+pidFile+"\n\""+fakeacp+"\" \"$@\"\nexit $?\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := acpRun{h: h, env: []string{"FAKEACP_PID=" + childFile}}
	done := make(chan result, 1)
	go func() { done <- r.run(t, "--agent", "acp", "--agent-bin", launcher, "-c", "[[slow]] work") }()
	lpid, apid := readPid(t, pidFile), readPid(t, childFile)
	time.Sleep(200 * time.Millisecond) // the turn is under way
	killProcess(lpid)
	var res2 result
	select {
	case res2 = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("todosh did not notice its agent's launcher was killed")
	}
	if res2.code != 1 || !containsInOrder(res2.stderr, "its launcher launch.sh (pid ", "ended (signal: killed); todosh stopped fakeacp (pid ") {
		t.Errorf("want the launcher's end and what it left:\n%s\n%s", res2.stdout, res2.stderr)
	}
	waitGone(t, "the agent behind the killed launcher", apid)
}

// TestDashesThenOwnFlags: todosh's own flags after -- are an error naming
// the mistake, with nothing run and nothing written.
func TestDashesThenOwnFlags(t *testing.T) {
	h := newHome(t)
	for _, args := range [][]string{{"--agent", "acp", "--", "-c", "hi"}, {"--agent", "acp", "--", fakeacp, "-c", "do the work"}} {
		r := h.script(t, h.dir, "", args...)
		if r.code != 2 || countLines(r.stderr) != 1 || !strings.Contains(r.stderr, "-c") || !strings.Contains(r.stderr, "before --") || r.stdout != "" {
			t.Errorf("%q: exit %d\nstdout %q\nstderr %q", args, r.code, r.stdout, r.stderr)
		}
	}
	if _, err := os.Stat(h.root); err == nil {
		t.Error("a refused command line wrote TODOSH_HOME")
	}
}
