package e2e_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/todosh/todosh/internal/testenv"
)

// fakeNpmAgent installs a stand-in agent the way npm does: a package
// directory with its package.json, and name on dir/bin linking to its
// script. It returns the bin directory.
func fakeNpmAgent(t *testing.T, dir, pkg, version, name string) string {
	t.Helper()
	testenv.NeedShell(t)
	pkgDir := filepath.Join(dir, "node_modules", filepath.FromSlash(pkg))
	if err := os.MkdirAll(filepath.Join(pkgDir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkgDir, "package.json"), []byte(`{"name":"`+pkg+`","version":"`+version+`"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(pkgDir, "bin", name+".js")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho "+version+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "bin")
	os.MkdirAll(bin, 0o755)
	if err := os.Symlink(script, filepath.Join(bin, name)); err != nil {
		t.Fatal(err)
	}
	return bin
}

// doctorRun runs todosh doctor with PATH set to path only.
func doctorRun(t *testing.T, h home, path string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"doctor"}, args...)...)
	for _, kv := range h.env() {
		if !strings.HasPrefix(kv, "PATH=") && !strings.HasPrefix(kv, "CLAUDE_CODE_ENABLE_TODO_TOOLS=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(append(cmd.Env, "PATH="+path), env...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return result{code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errOut.String()}
}

// TestDoctor: one screen per agent found or not with its version and
// rules; the exit status follows what the chosen agent needs; jsonl is
// the same as one object.
func TestDoctor(t *testing.T) {
	h := newHome(t)
	bin := fakeNpmAgent(t, h.dir, "@anthropic-ai/claude-code", "2.1.332", "claude")
	fakeNpmAgent(t, h.dir, "@zed-industries/codex-acp", "0.16.0", "codex-acp")

	r := doctorRun(t, h, bin, nil, "--agent", "claude")
	want := []string{"*claude      2.1.332 " + filepath.Join(bin, "claude"), "TaskCreate, TaskUpdate deferred behind ToolSearch, with CLAUDE_CODE_ENABLE_TODO_TOOLS=1",
		"  codex       not found", "acp:codex   0.16.0", "MCP server: ok: ", "TODOSH_HOME: " + h.root + " (not made yet; writable: true)",
		"terminal: tty false, TERM=xterm", "ok: everything --agent claude needs is there",
		// Which budgets hold each agent, from its row of the backend table.
		"usage: reported: --budget-tokens and --budget-time hold it\n", "0.16.0 " + filepath.Join(bin, "codex-acp") + "\n", "usage: not reported: --budget-time only\n"}
	for _, w := range want {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("lacks %q:\n%s", w, r.stdout)
		}
	}
	if r.code != 0 || r.stderr != "" || countLines(r.stdout) > 30 {
		t.Errorf("exit %d, %d lines, stderr %q", r.code, countLines(r.stdout), r.stderr)
	}
	if _, err := os.Stat(h.root); err == nil {
		t.Error("doctor made TODOSH_HOME")
	}

	// An agent that is not installed: exit 1 and the fix.
	r = doctorRun(t, h, bin, []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=0"}, "--agent", "codex")
	if r.code != 1 || !strings.Contains(r.stdout, "problem: codex: codex not found\n  fix: npm install -g @openai/codex, or give its path with --agent-bin") {
		t.Errorf("codex missing: exit %d\n%s", r.code, r.stdout)
	}
	if !strings.Contains(r.stdout, "note: CLAUDE_CODE_ENABLE_TODO_TOOLS=0 in your environment hides TodoWrite and the Task tools") {
		t.Errorf("the person's variable is not named:\n%s", r.stdout)
	}

	// The same as one JSON object.
	r = doctorRun(t, h, bin, nil, "--agent", "codex", "--output", "jsonl")
	var rep struct {
		OK       bool
		Agents   []struct{ Name, Version, Path string }
		Problems []struct{ What, Fix string }
		Home     struct{ Writable bool }
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || countLines(r.stdout) != 1 {
		t.Fatalf("not one JSON object: %v\n%s", err, r.stdout)
	}
	if r.code != 1 || rep.OK || len(rep.Problems) != 1 || !rep.Home.Writable || rep.Agents[0].Name != "claude" || rep.Agents[0].Version != "2.1.332" {
		t.Errorf("json: exit %d %+v", r.code, rep)
	}

	// A store others can read is a problem, named with its fix.
	if err := os.MkdirAll(filepath.Join(h.root, "todos"), 0o755); err != nil {
		t.Fatal(err)
	}
	r = doctorRun(t, h, bin, nil, "--agent", "claude")
	if r.code != 1 || !strings.Contains(r.stdout, "can be read by other users (chmod -R go-rwx") {
		t.Errorf("open store: exit %d\n%s", r.code, r.stdout)
	}
	// Another program given as the agent is not the agent, whatever
	// number its --version prints (GNU true: "true (GNU coreutils) 9.1").
	r = doctorRun(t, h, bin, nil, "--agent", "claude", "--agent-bin", "/bin/true")
	if r.code != 1 || !strings.Contains(r.stdout, "problem: claude: /bin/true does not look like claude") || strings.Contains(r.stdout, "ok: everything") {
		t.Errorf("--agent-bin /bin/true: exit %d\n%s", r.code, r.stdout)
	}
	// Bad use is one line and status 2.
	if r = doctorRun(t, h, bin, nil, "--agent-bin", "x"); r.code != 2 || !strings.Contains(r.stderr, "--agent-bin goes with --agent") {
		t.Errorf("bad use: %+v", r)
	}
}
