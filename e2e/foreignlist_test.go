package e2e_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestListMirroredClaudeList: Claude Code keeps its task list in
// ~/.claude/tasks/<id>, and todosh's hooks mirror it in the session
// claude-<id>. /todo list shows that list once, as the session, and
// nothing for a task list folder Claude emptied (2.1.332 leaves it).
func TestListMirroredClaudeList(t *testing.T) {
	h := newHome(t)
	const live, emptied = "5b0e9c1d-live", "7f3a2b4c-emptied"
	tasks := filepath.Join(h.dir, ".claude", "tasks")
	os.MkdirAll(filepath.Join(tasks, live), 0o700)
	os.MkdirAll(filepath.Join(tasks, emptied), 0o700)
	os.WriteFile(filepath.Join(tasks, live, "1.json"), []byte(`{"id":"1","subject":"Write the parser","status":"in_progress"}`), 0o600)
	os.WriteFile(filepath.Join(tasks, emptied, ".lock"), nil, 0o600)
	os.WriteFile(filepath.Join(tasks, emptied, ".highwatermark"), []byte("2"), 0o600)
	old := time.Now().Add(-time.Hour)
	for _, id := range []string{live, emptied} {
		os.Chtimes(filepath.Join(tasks, id), old, old)
		// What Claude Code's PostToolUse hook hands todosh.
		hook := exec.Command(binary, "hook", "claude", "tool")
		hook.Env, hook.Dir = h.env(), h.dir
		hook.Stdin = strings.NewReader(`{"session_id":"` + id + `","cwd":"` + h.dir + `","hook_event_name":"PostToolUse",` +
			`"tool_name":"TodoWrite","tool_input":{"todos":[{"content":"Write the parser","status":"in_progress","activeForm":"Writing"}]},"tool_response":{}}`)
		if out, err := hook.CombinedOutput(); err != nil || len(out) != 0 {
			t.Fatalf("hook: %v %q", err, out)
		}
	}
	r := h.script(t, h.dir, "", "-c", "/todo list")
	if r.code != 0 || strings.Contains(r.stdout, "[claude]") ||
		!strings.Contains(r.stdout, "claude-"+live) || !strings.Contains(r.stdout, "claude-"+emptied) || !strings.Contains(r.stdout, "(3 lists;") {
		t.Errorf("want this session and the two hook sessions, no [claude] row: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// Claude's list changed after the mirror did (its hooks were off):
	// both rows, since they may differ; the emptied folder still none.
	later := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(tasks, live), later, later)
	os.Chtimes(filepath.Join(tasks, emptied), later, later)
	r = h.script(t, h.dir, "", "-c", "/todo list")
	if r.code != 0 || strings.Count(r.stdout, "[claude]") != 1 || !strings.Contains(r.stdout, live+" ") || strings.Contains(r.stdout, " "+emptied) {
		t.Errorf("want the changed [claude] list beside its session: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
