package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --require-evidence reaches the model's tools from the command line: a
// completion without evidence is refused, one with evidence is kept.
func TestRequireEvidenceFlag(t *testing.T) {
	script := `{"replies": [
  {"text": "Plan.", "tool_calls": [{"name": "todo_write", "arguments": {"todos": [
    {"content": "write the parser", "status": "in_progress"}]}}]},
  {"text": "Done, trust me.", "tool_calls": [{"name": "todo_write", "arguments": {"todos": [
    {"content": "write the parser", "status": "completed"}]}}]},
  {"text": "With proof.", "tool_calls": [{"name": "todo_write", "arguments": {"todos": [
    {"content": "write the parser", "status": "completed", "evidence": "go test ./... ok"}]}}]},
  {"text": "Finished."}
]}`
	path := filepath.Join(t.TempDir(), "script.json")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	h := newHome(t)
	r := h.script(t, h.dir, "", "--session", "ev", "--agent", "script:"+path, "--require-evidence", "-c", "go", "-c", "/todo show")
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "evidence: go test ./... ok") || !strings.Contains(r.stdout, "all done") {
		t.Errorf("stdout lacks the evidence or the end:\n%s", r.stdout)
	}
	sess, err := h.store().Load("ev")
	if err != nil {
		t.Fatal(err)
	}
	if td := sess.Todos[0]; td.Status != "completed" || td.Evidence != "go test ./... ok" {
		t.Errorf("on disk: %+v, want completed with its evidence", td)
	}
	if strings.Count(r.stdout, `✓ 1 "write the parser"`) != 1 {
		t.Errorf("the completion without evidence was not refused (list completed more than once):\n%s", r.stdout)
	}
}
