package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// budgetRun sets the fake Claude Code up in its "reports usage" scenario:
// every model request reports 4,000 input and 100 output tokens; the
// first turn (3 requests, 12,300 tokens) ends lazily with items open, and
// a continuation resumes it and finishes the list.
func budgetRun(t *testing.T) (h home, work, bin, record string) {
	t.Helper()
	bin = filepath.Join(fakeCLIDir(t), "claude")
	h = newHome(t)
	work = filepath.Join(h.dir, "project")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	record = filepath.Join(h.dir, "cli-runs.jsonl")
	dir := filepath.Join(clisTestdata, "transcripts", "claude-todowrite")
	setFakeEnv(t, map[string]string{
		"FAKECLI_RUN1":    mustAbs(t, filepath.Join(dir, "claude-run1.jsonl")),
		"FAKECLI_RESUME":  mustAbs(t, filepath.Join(dir, "claude-resume.jsonl")),
		"FAKECLI_SESSION": "f3b303c4-9b82-483f-a4f8-445bb003551f",
		"FAKECLI_RECORD":  record,
		"FAKECLI_USAGE":   "4000,100",
	})
	return h, work, bin, record
}

// TestTokenBudgetScript: a -c script whose prompt spends its token budget
// stops continuing with one line and exits 5; in JSONL its end event says
// budget.
func TestTokenBudgetScript(t *testing.T) {
	h, work, bin, record := budgetRun(t)
	r := h.script(t, work, "", "--agent", "claude", "--agent-bin", bin, "--budget-tokens", "10000", "-c", "Plan and start building csvkit-lite")
	if r.code != 5 || !strings.Contains(r.stdout, "\nstopped: token budget reached: 12,300 of 10,000\n") || strings.Contains(r.stdout, "continuing") {
		t.Fatalf("exit %d, stderr %q, stdout:\n%s", r.code, r.stderr, r.stdout)
	}
	if runs := readCLIRuns(t, record); len(runs) != 1 {
		t.Errorf("the CLI ran %d times, want the first turn only", len(runs))
	}
	// Under the budget the same prompt continues and finishes.
	h, work, bin, record = budgetRun(t)
	r = h.script(t, work, "", "--output", "jsonl", "--agent", "claude", "--agent-bin", bin, "--budget-tokens", "100000", "-c", "Plan and start building csvkit-lite")
	evs := parseJSONL(t, r.stdout)
	if last := evs[len(evs)-1]; r.code != 0 || last.Type != "end" || last.Reason != "done" {
		t.Fatalf("under the budget: exit %d, last event %+v, stderr %q", r.code, last, r.stderr)
	}
	h, work, bin, _ = budgetRun(t)
	r = h.script(t, work, "", "--output", "jsonl", "--agent", "claude", "--agent-bin", bin, "--budget-tokens", "10000", "-c", "Plan and start building csvkit-lite")
	evs = parseJSONL(t, r.stdout)
	if last := evs[len(evs)-1]; r.code != 5 || last.Type != "end" || last.Reason != "budget" || last.Exit == nil || *last.Exit != 5 {
		t.Fatalf("jsonl: exit %d, last event %+v, stderr %q", r.code, last, r.stderr)
	}
}

// TestTimeBudgetScript: a time budget holds any agent, one that reports
// no usage too; the first turn spends a budget of a nanosecond.
func TestTimeBudgetScript(t *testing.T) {
	h, work, bin, _ := budgetRun(t)
	r := h.script(t, work, "", "--agent", "claude", "--agent-bin", bin, "--budget-time", "1ns", "-c", "Plan and start building csvkit-lite")
	if r.code != 5 || !strings.Contains(r.stdout, "\nstopped: time budget reached: ") || !strings.Contains(r.stdout, " of 1ns\n") {
		t.Fatalf("exit %d, stderr %q, stdout:\n%s", r.code, r.stderr, r.stdout)
	}
}

// TestBudgetRaiseContinues: /todo budget shows what is left, and /todo
// budget +N after a stop at the budget continues the same list, without a
// new prompt, to the end.
func TestBudgetRaiseContinues(t *testing.T) {
	h, work, bin, record := budgetRun(t)
	r := h.script(t, work, "", "--agent", "claude", "--agent-bin", bin, "--budget-tokens", "10000",
		"-c", "Plan and start building csvkit-lite", "-c", "/todo budget", "-c", "/todo budget +20000")
	for _, want := range []string{
		"\nstopped: token budget reached: 12,300 of 10,000\n",
		"tokens: 12,300 of 10,000 spent, 0 left\n",
		"Raised the budget of this prompt (continuing the same list)\ntokens: 12,300 of 30,000 spent, 17,700 left\n",
		"\nall done\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if r.code != 0 || t.Failed() {
		t.Fatalf("exit %d, stderr %q, stdout:\n%s", r.code, r.stderr, r.stdout)
	}
	runs := readCLIRuns(t, record)
	if len(runs) != 2 || runs[1].Resume != "f3b303c4-9b82-483f-a4f8-445bb003551f" || !strings.Contains(runs[1].Stdin, "todo") {
		t.Errorf("the CLI ran %d times, want the first turn and a continuation of the same session: %+v", len(runs), runs)
	}
	if !todoAllDone(t, h) {
		t.Error("the list is not done")
	}
}

// TestBudgetTokensRefused: an agent that reports no usage gets no token
// budget: one line names the agent and what holds it instead.
func TestBudgetTokensRefused(t *testing.T) {
	h := newHome(t)
	r := h.script(t, h.dir, "", "--agent", "acp:codex", "--budget-tokens", "1000", "-c", "hi")
	if r.code != 2 || r.stderr != "todosh: --budget-tokens: --agent acp:codex reports no token usage, so only --budget-time can hold it (agents that report usage: openai, claude, codex, gemini, qwen, pi or acp:claude) (see todosh --help)\n" {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}

func todoAllDone(t *testing.T, h home) bool {
	t.Helper()
	sess := h.onlySession(t)
	if len(sess.Todos) == 0 {
		return false
	}
	for _, td := range sess.Todos {
		if td.IsOpen() {
			return false
		}
	}
	return true
}

// TestBudgetRaiseInTerminal: in the interactive shell, /todo budget +N
// after a stop at the budget continues the list in the live region, and
// the prompt comes back once it is done.
func TestBudgetRaiseInTerminal(t *testing.T) {
	h, _, bin, record := budgetRun(t)
	tm := h.startTerm(t, "--agent", "claude", "--agent-bin", bin, "--budget-tokens", "10000", "--continue-delay", "0")
	tm.expect("› ")
	tm.typ("Plan and start building csvkit-lite\r")
	tm.expect("stopped: token budget reached: 12,300 of 10,000")
	tm.expect("› ")
	tm.typ("/todo budget +20000\r")
	tm.expect("continuing the same list")
	tm.expect("all done")
	tm.expect("todosh 3/3 › ")
	tm.quit()
	if runs := readCLIRuns(t, record); len(runs) != 2 {
		t.Errorf("the CLI ran %d times, want the first turn and the continuation after the raise", len(runs))
	}
}

// mustAbs is p made absolute, for a fake's settings, which it reads from
// another directory.
func mustAbs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
