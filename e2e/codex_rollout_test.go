package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCodexContinuationCountsFromRollout: Codex's stream reports its
// in-progress item as pending (completed:false); its rollout file under
// $HOME/.codex keeps update_plan's statuses. The continuation todosh sends
// counts the item Codex has in progress, and carries the list block once.
func TestCodexContinuationCountsFromRollout(t *testing.T) {
	const session = "01a20041-b822-7443-827f-46d87d803854"
	bin := filepath.Join(fakeCLIDir(t), "codex")
	h := newHome(t)
	work := filepath.Join(h.dir, "project")
	sessions := filepath.Join(h.dir, ".codex", "sessions", "2026", "11", "25")
	for _, d := range []string{work, sessions} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	transcripts := filepath.Join(clisTestdata, "transcripts", "codex")
	rollout, err := os.ReadFile(filepath.Join(transcripts, "codex-run1.rollout"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sessions, "rollout-2026-11-25T17-53-17-"+session+".jsonl"), rollout, 0o600); err != nil {
		t.Fatal(err)
	}
	abs := func(name string) string {
		p, err := filepath.Abs(filepath.Join(transcripts, name))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	record := filepath.Join(h.dir, "cli-runs.jsonl")
	setFakeEnv(t, map[string]string{
		"FAKECLI_RUN1":    abs("codex-run1.jsonl"),
		"FAKECLI_RESUME":  abs("codex-resume-id.jsonl"),
		"FAKECLI_SESSION": session,
		"FAKECLI_RECORD":  record,
	})
	r := h.script(t, work, "", "--output", "jsonl", "--agent", "codex", "--agent-bin", bin, "-c", "Plan and start building csvkit-lite")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q, stdout:\n%s", r.code, r.stderr, r.stdout)
	}
	if !strings.Contains(r.stdout, `"status":"in_progress"`) {
		t.Errorf("no list with an item in progress shown:\n%s", r.stdout)
	}
	runs := readCLIRuns(t, record)
	if len(runs) != 2 {
		t.Fatalf("the CLI ran %d times, want a first turn and one continuation", len(runs))
	}
	prompt := runs[1].Stdin
	const want = "You stopped, but the todo list still has 2 open items (1 in progress, 1 pending). Continue working through the list now; next is item 2 (in progress).\n"
	if !strings.HasPrefix(prompt, want) {
		t.Errorf("continuation prompt:\n%s\nwant it to start with:\n%s", prompt, want)
	}
	if n := strings.Count(prompt, "\n<todo-list>\n"); n != 1 {
		t.Errorf("the continuation carries the list block %d times, want once:\n%s", n, prompt)
	}
	if !strings.Contains(prompt, `2. ▸ "Implement CSV parser with quoted-field support"  (in progress)`) {
		t.Errorf("the block does not show item 2 in progress:\n%s", prompt)
	}
}
