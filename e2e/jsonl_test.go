package e2e_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/todosh/todosh/agent/modelapi"
)

// lazyScript is the script of docs/agents.md: one item done, then nothing.
const lazyScript = `{"replies": [
  {"text": "Planning.", "tool_calls": [{"name": "todo_write", "arguments": {"todos": [
    {"content": "write the parser", "status": "in_progress"},
    {"content": "write tests", "status": "pending"}]}}]},
  {"text": "The parser is done.", "tool_calls": [{"name": "todo_write", "arguments": {"todos": [
    {"content": "write the parser", "status": "completed"},
    {"content": "write tests", "status": "pending"}]}}]},
  {"text": "I will stop here."}
 ],
 "end_text": "(script ended)"}`

// writeScript writes a script agent's file and returns its --agent value.
func writeScript(t *testing.T, script string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "script.json")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	return "script:" + path
}

// goldenJSONL compares a stream with testdata/jsonl/name.golden; the
// cost events' times in progress, which the clock decides, read "N".
func goldenJSONL(t *testing.T, name, got string) {
	goldenOutput(t, "jsonl", name, costSeconds.ReplaceAllString(got, `"seconds":"N"`))
}

// costSeconds is a cost event's time in progress.
var costSeconds = regexp.MustCompile(`"seconds":[0-9.e+-]+`)

// The demo's two prompts as a script with --output jsonl: the first ends
// paused (exit status 4 had it been the last), the second done (0).
func TestJSONLDemo(t *testing.T) {
	h := newHome(t)
	p := modelapi.DemoPrompts()
	r := h.script(t, h.dir, "", "--session", "demo", "--agent", "demo", "--output", "jsonl", "-c", p[0], "-c", p[1])
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	evs := parseJSONL(t, r.stdout)
	var ends []string
	for _, ev := range evs {
		if ev.Type == "end" {
			ends = append(ends, ev.Reason)
		}
	}
	if strings.Join(ends, ",") != "paused,done" {
		t.Errorf("end reasons %q, want paused then done", ends)
	}
	// The first turn writes the list and finishes its first item: progress.
	for _, ev := range evs {
		if ev.Type == "continuation" {
			if ev.Progress == nil || !*ev.Progress {
				t.Errorf("the first continuation event says no progress after the skeleton was finished: %+v", ev)
			}
			break
		}
	}
	goldenJSONL(t, "demo", r.stdout)
}

// A lazy model: continued three times without progress, then stopped.
func TestJSONLLazy(t *testing.T) {
	h := newHome(t)
	r := h.script(t, h.dir, "", "--session", "lazy", "--agent", writeScript(t, lazyScript), "--output", "jsonl", "-c", "go")
	if r.code != 3 {
		t.Fatalf("exit %d, want 3 (no progress); stderr %q", r.code, r.stderr)
	}
	parseJSONL(t, r.stdout)
	goldenJSONL(t, "lazy", r.stdout)
}

// Every way a prompt can end: the end event's reason and the exit status.
func TestJSONLEndReasonsAndExitCodes(t *testing.T) {
	done := `[{"text": "Done.", "tool_calls": [{"name": "todo_write", "arguments": {"todos": [
    {"content": "a", "status": "completed"}]}}]}]`
	paused := `[{"text": "Plan.", "tool_calls": [{"name": "todo_write", "arguments": {"todos": [
    {"content": "a", "status": "pending"}]}}, {"name": "todo_pause", "arguments": {"reason": "which database?"}}]}]`
	question := `[{"text": "Plan.", "tool_calls": [{"name": "todo_write", "arguments": {"todos": [
    {"content": "a", "status": "pending"}]}}]}, {"text": "Shall I use SQLite?"}]`
	cases := []struct {
		name   string
		args   []string
		reason string
		code   int
	}{
		{"done", []string{"--agent", writeScript(t, done), "-c", "go"}, "done", 0},
		{"no progress", []string{"--agent", writeScript(t, lazyScript), "-c", "go"}, "no_progress", 3},
		{"cap (continuation off)", []string{"--no-continue", "--agent", writeScript(t, lazyScript), "-c", "go"}, "cap", 3},
		{"paused", []string{"--agent", writeScript(t, paused), "-c", "go"}, "paused", 4},
		{"question", []string{"--agent", writeScript(t, question), "-c", "go"}, "question", 4},
		{"error: no agent", []string{"--agent", "none", "-c", "go"}, "error", 1},
		{"a failed command wins", []string{"--agent", writeScript(t, done), "-c", "/todo done 9", "-c", "go"}, "done", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHome(t)
			r := h.script(t, h.dir, "", append([]string{"--output", "jsonl"}, c.args...)...)
			if r.code != c.code {
				t.Errorf("exit %d, want %d; stderr %q", r.code, c.code, r.stderr)
			}
			evs := parseJSONL(t, r.stdout)
			last := evs[len(evs)-1]
			if last.Type != "end" || last.Reason != c.reason || last.Exit == nil {
				t.Fatalf("last event %+v, want end %q", last, c.reason)
			}
			// Text output gives the same status.
			if tr := h.script(t, h.dir, "", c.args...); tr.code != c.code {
				t.Errorf("text output: exit %d, want %d", tr.code, c.code)
			}
		})
	}
}
