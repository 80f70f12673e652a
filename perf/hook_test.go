package perf

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/todostore"
)

// BenchmarkHookEvent execs `todosh hook claude tool` as Claude Code's
// PostToolUse runs it, for a command (recorded in the work log: issue
// 26's receipts) and for the todo tool (the mirror), against a session
// of 10 items one of which is in progress, built as the install command
// builds todosh. It reports the median wall time per event (at most 60
// events each). Target: median ≤ 15 ms on the development machine.
func BenchmarkHookEvent(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("measured on Linux")
	}
	dir := b.TempDir()
	todosh := build(b, dir, "todosh", "github.com/todosh/todosh", "CGO_ENABLED=0")
	store := todostore.Open(dir + "/home")
	id := todostore.MirrorID("claude", "bench")
	if _, err := store.Update(id, func(s *todostore.Session) error {
		s.Todos = list(10, 0)
		s.Todos[0].Status = todolist.InProgress
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	todos := make([]map[string]string, 10)
	for i, t := range list(10, 0) {
		todos[i] = map[string]string{"content": t.Content, "status": "pending", "activeForm": t.Content}
	}
	todos[0]["status"] = "in_progress"
	for _, ev := range []struct {
		name string
		in   map[string]any
	}{
		{"command", map[string]any{"tool_name": "Bash", "tool_input": map[string]string{"command": "go test ./..."},
			"tool_response": map[string]any{"stdout": "ok", "stderr": "", "interrupted": false}}},
		{"todo-tool", map[string]any{"tool_name": "TodoWrite", "tool_input": map[string]any{"todos": todos}, "tool_response": map[string]any{}}},
	} {
		ev.in["session_id"], ev.in["hook_event_name"], ev.in["cwd"] = "bench", "PostToolUse", dir
		input, _ := json.Marshal(ev.in)
		b.Run(ev.name, func(b *testing.B) {
			var walls []time.Duration
			for b.Loop() {
				if len(walls) >= 60 {
					continue
				}
				cmd := exec.Command(todosh, "hook", "claude", "tool")
				cmd.Env = []string{"HOME=" + dir, "TODOSH_HOME=" + dir + "/home"}
				cmd.Stdin = bytes.NewReader(input)
				var errb bytes.Buffer
				cmd.Stderr = &errb
				t0 := time.Now()
				if err := cmd.Run(); err != nil || errb.Len() > 0 {
					b.Fatalf("hook: %v %s", err, errb.String())
				}
				walls = append(walls, time.Since(t0))
			}
			slices.Sort(walls)
			b.ReportMetric(float64(walls[len(walls)/2].Microseconds())/1000, "median-ms")
		})
	}
	log, err := store.Work(id)
	if err != nil || len(log.Lines) == 0 || log.Lines[0].Item == "" {
		b.Fatalf("the hook recorded nothing against the item in progress: %+v %v", log.Lines, err)
	}
}
