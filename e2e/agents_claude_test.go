package e2e_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/todosh/todosh/internal/testenv"
)

// Claude Code 2.1.328 (played by the fake CLI with FAKECLI_CLAUDE_RULE=1)
// offers its todo tools only with CLAUDE_CODE_ENABLE_TODO_TOOLS=1, and then
// deferred behind ToolSearch.

// claudeRun runs todosh as a script around the fake claude in a fresh
// home, with the fake's configuration env, and returns the result and
// what the fake recorded.
func claudeRun(t *testing.T, env map[string]string, args ...string) (result, []cliRun) {
	t.Helper()
	bin := filepath.Join(fakeCLIDir(t), "claude")
	h := newHome(t)
	record := filepath.Join(h.dir, "cli-runs.jsonl")
	abs := func(p string) string {
		a, err := filepath.Abs(filepath.Join(clisTestdata, p))
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	full := map[string]string{
		"FAKECLI_RUN1":        abs("transcripts/claude-2.1.328-deferred/claude-run1.jsonl"),
		"FAKECLI_RESUME":      abs("fake/claude-deferred-resume.jsonl"),
		"FAKECLI_SESSION":     "10ab06ce-5fee-433f-82a3-103efdf30cb9",
		"FAKECLI_RECORD":      record,
		"FAKECLI_CLAUDE_RULE": "1",
	}
	// The fake's variables go through the test's own environment; the
	// person's others (CLAUDE_CODE_ENABLE_TODO_TOOLS) are added to todosh's.
	var person []string
	for k, v := range env {
		if strings.HasPrefix(k, "FAKECLI_") {
			full[k] = v
		} else {
			person = append(person, k+"="+v)
		}
	}
	setFakeEnv(t, full)
	cmd := exec.Command(binary, append([]string{"--agent", "claude", "--agent-bin", bin, "--continue-delay", "0"}, args...)...)
	cmd.Env, cmd.Dir = testenv.Env(h.dir, person...), h.dir
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatal(err)
		}
	}
	r := result{code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errOut.String()}
	return r, readCLIRuns(t, record)
}

// TestClaudeDeferredTaskTools: todosh sets the variable, the deferred Task
// tools keep the list, and the continuation says to load them with
// ToolSearch and names todosh's tools as Claude spells them.
func TestClaudeDeferredTaskTools(t *testing.T) {
	r, runs := claudeRun(t, nil, "-c", "Plan and start building csvkit-lite")
	if r.code != 0 || !strings.HasSuffix(r.stdout, "all done\n") {
		t.Fatalf("exit %d, want the list finished:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if len(runs) != 2 || runs[0].ClaudeTodoTools != "1" || runs[1].ClaudeTodoTools != "1" {
		t.Fatalf("runs %+v: want two, each with CLAUDE_CODE_ENABLE_TODO_TOOLS=1", runs)
	}
	for _, want := range []string{`call ToolSearch with {"query": "select:TaskCreate,TaskUpdate,mcp__todosh__todo_pause"}`,
		"Keep the list current with TaskUpdate"} {
		if !strings.Contains(runs[1].Stdin, want) {
			t.Errorf("the continuation lacks %q:\n%s", want, runs[1].Stdin)
		}
	}
	if strings.Contains(r.stdout, "cannot be kept") || !strings.Contains(r.stdout, "ToolSearch select:TaskCreate,TaskUpdate") {
		t.Errorf("output:\n%s", r.stdout)
	}
}

// TestClaudeNoTodoTools: the person's own CLAUDE_CODE_ENABLE_TODO_TOOLS=0
// stands; with todosh's MCP tools there the list can still be kept (no
// note), and without them one note names the variable and the fix.
func TestClaudeNoTodoTools(t *testing.T) {
	r, runs := claudeRun(t, map[string]string{"CLAUDE_CODE_ENABLE_TODO_TOOLS": "0"}, "-c", "Plan it")
	if r.code != 0 || strings.Contains(r.stdout, "cannot be kept") || runs[0].ClaudeTodoTools != "0" {
		t.Errorf("with todosh's MCP tools: exit %d, given %q:\n%s\n%s", r.code, runs[0].ClaudeTodoTools, r.stdout, r.stderr)
	}

	r, _ = claudeRun(t, map[string]string{"CLAUDE_CODE_ENABLE_TODO_TOOLS": "0", "FAKECLI_MCP_STATUS": "failed"}, "-c", "Plan it")
	want := []string{"claude: its todo list cannot be kept: CLAUDE_CODE_ENABLE_TODO_TOOLS=0 in your environment hides its todo tools",
		"claude: unset CLAUDE_CODE_ENABLE_TODO_TOOLS"}
	for _, w := range want {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("lacks %q:\n%s", w, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "--allowedTools") {
		t.Errorf("blames --allowedTools:\n%s", r.stdout)
	}

	// Unset by the person, but the MCP server failed: todosh's variable
	// gives the Task tools, so nothing to say.
	r, _ = claudeRun(t, map[string]string{"FAKECLI_MCP_STATUS": "failed"}, "-c", "Plan it")
	if strings.Contains(r.stdout, "cannot be kept") {
		t.Errorf("with the Task tools:\n%s", r.stdout)
	}
}
