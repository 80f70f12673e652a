package clis

import (
	"encoding/json"
	"testing"

	"github.com/todosh/todosh/todolist"
)

// TestMapHookCall: each CLI's todo tool call, as its hook reports it, is
// read by that CLI's own parser.
func TestMapHookCall(t *testing.T) {
	for _, tc := range []struct {
		kind, tool, input, response string
		want                        []string // content:status of the list
		task                        *TaskOp
		notice                      bool
	}{
		{kind: "claude", tool: "TodoWrite", input: `{"todos":[{"content":"a","status":"completed","activeForm":"A"},{"content":"b","status":"in_progress","activeForm":"B"}]}`,
			response: `{"oldTodos":[],"newTodos":[]}`, want: []string{"a:completed", "b:in_progress"}},
		{kind: "claude", tool: "TaskCreate", input: `{"subject":"write it","description":"d","activeForm":"writing"}`,
			response: `{"task":{"id":"7","subject":"write it"}}`, task: &TaskOp{Create: true, ID: "7", Subject: "write it", ActiveForm: "writing"}},
		{kind: "claude", tool: "TaskCreate", input: `{"subject":"s"}`, response: `"Task #12 created successfully: s"`,
			task: &TaskOp{Create: true, ID: "12", Subject: "s"}},
		{kind: "claude", tool: "TaskUpdate", input: `{"taskId":"7","status":"completed"}`, response: `{"success":true}`,
			task: &TaskOp{ID: "7", Status: todolist.Completed}},
		{kind: "claude", tool: "TaskUpdate", input: `{"taskId":7,"status":"deleted"}`, response: `{"success":true}`,
			task: &TaskOp{ID: "7", Delete: true}},
		{kind: "claude", tool: "TaskUpdate", input: `{"taskId":"7","status":"completed"}`, response: `{"success":false}`},
		{kind: "claude", tool: "Bash", input: `{"command":"ls"}`},
		{kind: "claude", tool: "TodoWrite", input: `{"todos":"nope"}`, notice: true},
		{kind: "qwen", tool: "todo_write", input: `{"todos":[{"id":"1","content":"a","status":"pending"}]}`, want: []string{"a:pending"}},
		{kind: "qwen", tool: "TaskCreate", input: `{"subject":"a"}`},
		{kind: "gemini", tool: "write_todos", input: `{"todos":[{"description":"a","status":"blocked"},{"description":"b","status":"cancelled"}]}`,
			want: []string{"a:pending", "b:cancelled"}},
		{kind: "gemini", tool: "write_todos", input: `{}`, notice: true},
		{kind: "codex", tool: "update_plan", input: `{"explanation":"x","plan":[{"step":"a","status":"completed"},{"step":"b","status":"in_progress"},{"step":" ","status":"pending"}]}`,
			want: []string{"a:completed", "b:in_progress"}},
		{kind: "codex", tool: "update_plan", input: `{"plan":null}`, notice: true},
		{kind: "codex", tool: "shell", input: `{"command":["ls"]}`},
	} {
		t.Run(tc.kind+"/"+tc.tool, func(t *testing.T) {
			res, err := MapHookCall(tc.kind, HookCall{Tool: tc.tool, Input: json.RawMessage(tc.input), Response: json.RawMessage(tc.response)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, td := range res.Todos {
				got = append(got, td.Content+":"+string(td.Status))
			}
			if res.HasList != (tc.want != nil) || len(got) != len(tc.want) {
				t.Fatalf("list %v (has %v), want %v", got, res.HasList, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("item %d = %s, want %s", i, got[i], tc.want[i])
				}
			}
			switch {
			case tc.task == nil && res.Task != nil:
				t.Errorf("task %+v, want none", *res.Task)
			case tc.task != nil && (res.Task == nil || *res.Task != *tc.task):
				t.Errorf("task %+v, want %+v", res.Task, *tc.task)
			}
			if (len(res.Notices) > 0) != tc.notice {
				t.Errorf("notices %q", res.Notices)
			}
		})
	}
	if _, err := MapHookCall("cursor", HookCall{}, nil); err == nil {
		t.Error("an unknown CLI was accepted")
	}
}
