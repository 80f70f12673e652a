package clis

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/todosh/todosh/todolist"
)

// codexHome makes a CODEX_HOME holding rollout (a file of testdata) as the
// rollout of thread, where Codex keeps it, and returns the directory.
func codexHome(t *testing.T, thread, rollout string) string {
	t.Helper()
	data, err := os.ReadFile(rollout)
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(t.TempDir(), "codex")
	dir := filepath.Join(home, "sessions", "2026", "11", "25")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "rollout-2026-11-25T17-53-17-"+thread+".jsonl"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

func planLine(args string) string {
	return `{"timestamp":"2026-11-25T17:53:18.143Z","ordinal":11,"type":"response_item","payload":{"type":"function_call","status":"completed","id":"fc_2","name":"update_plan","arguments":` + args + `,"call_id":"call_3"}}`
}

func TestCodexLastPlan(t *testing.T) {
	real, err := os.ReadFile(transcript("transcripts", "codex", "codex-run1.rollout"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, rollout, want string // want: status:step,... or "none"
	}{
		{"real rollout: the last call", string(real), "completed:Create project skeleton for csvkit-lite,in_progress:Implement CSV parser with quoted-field support,pending:Write unit tests for the parser"},
		{"no call", `{"type":"response_item","payload":{"type":"message","role":"assistant"}}` + "\n", "none"},
		{"empty", "", "none"},
		{"last line without newline", planLine(`"{\"plan\":[{\"step\":\"a\",\"status\":\"pending\"}]}"`) + "\n" + planLine(`"{\"plan\":[{\"step\":\"b\",\"status\":\"in_progress\"}]}"`), "in_progress:b"},
		{"a bad last call is skipped", planLine(`"{\"plan\":[{\"step\":\"a\",\"status\":\"pending\"}]}"`) + "\n" + planLine(`"not json"`) + "\n", "pending:a"},
		{"cut first line", `ate_plan","arguments":"x"}}` + "\n" + planLine(`"{\"plan\":[{\"step\":\"a\",\"status\":\"completed\"}]}"`) + "\n", "completed:a"},
		{"an event_msg naming update_plan is not a call", planLine(`"{\"plan\":[{\"step\":\"a\",\"status\":\"pending\"}]}"`) + "\n" + `{"type":"event_msg","payload":{"type":"function_call","name":"update_plan","arguments":"{\"plan\":[]}"}}` + "\n", "pending:a"},
		{"another tool", strings.Replace(planLine(`"{\"plan\":[{\"step\":\"a\",\"status\":\"pending\"}]}"`), `"name":"update_plan"`, `"name":"exec_command","x":"update_plan"`, 1), "none"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			steps, ok := codexLastPlan([]byte(c.rollout))
			got := "none"
			if ok {
				var parts []string
				for _, s := range steps {
					parts = append(parts, s.Status+":"+s.Step)
				}
				got = strings.Join(parts, ",")
			}
			if got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestCodexPlanStatuses(t *testing.T) {
	td := func(s string, st todolist.Status) todolist.Todo { return todolist.Todo{Content: s, Status: st} }
	P, I, C := todolist.Pending, todolist.InProgress, todolist.Completed
	step := func(s, st string) codexPlanStep { return codexPlanStep{Step: s, Status: st} }
	cases := []struct {
		name  string
		todos []todolist.Todo
		plan  []codexPlanStep
		want  string // statuses, or "unchanged"
	}{
		{"the stream's pending is the plan's in_progress",
			[]todolist.Todo{td("a", C), td("b", P), td("c", P)},
			[]codexPlanStep{step("a", "completed"), step("b", "in_progress"), step("c", "pending")}, "completed,in_progress,pending"},
		{"kept in_progress the plan moved on",
			[]todolist.Todo{td("a", C), td("b", I), td("c", P)},
			[]codexPlanStep{step("a", "completed"), step("b", "pending"), step("c", "in_progress")}, "completed,pending,in_progress"},
		{"already right", []todolist.Todo{td("a", I)}, []codexPlanStep{step("a", "in_progress")}, "unchanged"},
		{"spaces kept as the stream had them", []todolist.Todo{td(" a ", P)}, []codexPlanStep{step(" a ", "in_progress")}, "in_progress"},
		{"an empty step", []todolist.Todo{td("a", P)}, []codexPlanStep{step(" ", "in_progress")}, "unchanged"},
		{"other text", []todolist.Todo{td("a", P)}, []codexPlanStep{step("b", "in_progress")}, "unchanged"},
		{"other length", []todolist.Todo{td("a", P)}, []codexPlanStep{step("a", "in_progress"), step("b", "pending")}, "unchanged"},
		{"other order", []todolist.Todo{td("a", P), td("b", P)}, []codexPlanStep{step("b", "in_progress"), step("a", "pending")}, "unchanged"},
		{"completed differs", []todolist.Todo{td("a", P)}, []codexPlanStep{step("a", "completed")}, "unchanged"},
		{"completed in the list, open in the plan", []todolist.Todo{td("a", C)}, []codexPlanStep{step("a", "in_progress")}, "unchanged"},
		{"unknown status", []todolist.Todo{td("a", P)}, []codexPlanStep{step("a", "blocked")}, "unchanged"},
		{"empty", nil, nil, "unchanged"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := todolist.CloneTodos(c.todos)
			out, ok := codexPlanStatuses(c.todos, c.plan)
			got := "unchanged"
			if ok {
				got = statuses(out)
			}
			if got != c.want {
				t.Errorf("got %s, want %s", got, c.want)
			}
			if !todolist.SameTodos(before, c.todos) {
				t.Errorf("the caller's list changed")
			}
		})
	}
}

func TestCodexRolloutPath(t *testing.T) {
	const thread = "01a20041-b822-7443-827f-46d87d803854"
	home := codexHome(t, thread, transcript("transcripts", "codex", "codex-run1.rollout"))
	if p, err := codexRolloutPath([]string{"CODEX_HOME=" + home}, thread); err != nil || !strings.HasSuffix(p, thread+".jsonl") {
		t.Errorf("CODEX_HOME: %q %v", p, err)
	}
	if p, err := codexRolloutPath([]string{"HOME=" + filepath.Dir(home)}, thread); err == nil {
		t.Errorf("HOME without .codex found %q", p)
	}
	if err := os.Rename(home, filepath.Join(filepath.Dir(home), ".codex")); err != nil {
		t.Fatal(err)
	}
	if _, err := codexRolloutPath([]string{"HOME=" + filepath.Dir(home)}, thread); err != nil {
		t.Errorf("HOME/.codex: %v", err)
	}
	for _, bad := range []string{"", "*", "../x", "01a2[0]"} {
		if _, err := codexRolloutPath([]string{"HOME=" + filepath.Dir(home)}, bad); err == nil {
			t.Errorf("thread %q accepted", bad)
		}
	}
}

// FuzzCodexLastPlan: any bytes are read without a panic, and a plan found
// is one of the update_plan calls in them.
func FuzzCodexLastPlan(f *testing.F) {
	if real, err := os.ReadFile(transcript("transcripts", "codex", "codex-run1.rollout")); err == nil {
		f.Add(real)
	}
	f.Add([]byte(planLine(`"{\"plan\":[{\"step\":\"a\",\"status\":\"pending\"}]}"`)))
	f.Add([]byte("\n\n\"update_plan\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		steps, ok := codexLastPlan(data)
		if ok && steps == nil {
			t.Fatal("ok without steps")
		}
		if ok && !strings.Contains(string(data), `"update_plan"`) {
			t.Fatal("a plan from bytes without update_plan")
		}
	})
}
