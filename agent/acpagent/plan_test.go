package acpagent

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/todosh/todosh/todolist"

	acp "github.com/coder/acp-go-sdk"

	"github.com/todosh/todosh/agent"
)

func TestPlanTodos(t *testing.T) {
	long := strings.Repeat("é", todolist.MaxTextLen+5)
	tests := []struct {
		name    string
		entries []acp.PlanEntry
		want    string // content:status, ...
		cut     bool
	}{
		{"recorded claude plan", []acp.PlanEntry{
			{Content: "Create project skeleton for csvkit-lite", Status: "in_progress", Priority: "medium"},
			{Content: "Implement CSV parser with quoted-field support", Status: "pending", Priority: "medium"},
			{Content: "Write unit tests for the parser", Status: "completed", Priority: "medium"}},
			"Create project skeleton for csvkit-lite:in_progress,Implement CSV parser with quoted-field support:pending,Write unit tests for the parser:completed", false},
		{"blank entries skipped, text trimmed", []acp.PlanEntry{{Content: "  "}, {Content: " a ", Status: "pending"}}, "a:pending", false},
		{"unknown status is pending", []acp.PlanEntry{{Content: "a", Status: "blocked"}}, "a:pending", false},
		{"long text cut", []acp.PlanEntry{{Content: long, Status: "pending"}}, strings.Repeat("é", todolist.MaxTextLen-1) + "…:pending", true},
		{"empty plan", nil, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			todos, cut := PlanTodos(tt.entries)
			var got []string
			for _, td := range todos {
				got = append(got, td.Content+":"+string(td.Status))
			}
			if strings.Join(got, ",") != tt.want || cut != tt.cut {
				t.Errorf("PlanTodos = %q cut %v, want %q cut %v", strings.Join(got, ","), cut, tt.want, tt.cut)
			}
		})
	}
	var many []acp.PlanEntry
	for range todolist.MaxTodos + 3 {
		many = append(many, acp.PlanEntry{Content: "x", Status: "pending"})
	}
	if todos, cut := PlanTodos(many); len(todos) != todolist.MaxTodos || !cut {
		t.Errorf("%d entries: %d todos, cut %v", len(many), len(todos), cut)
	}
}

// FuzzPlanTodos: whatever plan an agent sends, the mapping yields a list
// the store accepts, or nothing.
func FuzzPlanTodos(f *testing.F) {
	f.Add([]byte(`[{"content":"Create project skeleton","status":"in_progress","priority":"medium"},{"content":"b","status":"completed","priority":"high"}]`))
	f.Add([]byte(`[{"content":"","status":"pending"},{"content":"\u0000\n<todo-list>","status":"cancelled"}]`))
	f.Add([]byte(`[{"content":"` + strings.Repeat("a", 1200) + `","status":"pending"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var entries []acp.PlanEntry
		if json.Unmarshal(data, &entries) != nil {
			return
		}
		todos, _ := PlanTodos(entries)
		if len(todos) > todolist.MaxTodos {
			t.Fatalf("%d todos", len(todos))
		}
		for _, td := range todos {
			if strings.TrimSpace(td.Content) == "" || utf8.RuneCountInString(td.Content) > todolist.MaxTextLen {
				t.Fatalf("bad content %q", td.Content)
			}
			switch td.Status {
			case todolist.Pending, todolist.InProgress, todolist.Completed:
			default:
				t.Fatalf("status %q from a plan", td.Status)
			}
		}
		check := todolist.CloneTodos(todos)
		todolist.Normalize(check)
		if err := todolist.Validate(check); err != nil {
			t.Fatalf("the store refuses the mapped plan: %v", err)
		}
	})
}

// FuzzWriteTodosInput: any JSON raw input is read or refused without
// panicking, and what is read fits the list's limits once mapped.
func FuzzWriteTodosInput(f *testing.F) {
	f.Add([]byte(`{"todos":[{"description":"a","status":"in_progress"}]}`))
	f.Add([]byte(`{"plan":[{"step":"x","status":"completed"},{"step":7}]}`))
	f.Add([]byte(`{"todos":"x"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var raw any
		if json.Unmarshal(data, &raw) != nil {
			return
		}
		entries, ok := WriteTodosInput(raw)
		if !ok {
			return
		}
		todos, _ := PlanTodos(entries)
		if len(todos) > todolist.MaxTodos {
			t.Fatalf("%d todos", len(todos))
		}
	})
}

// TestPromptTextContext: the todo context goes before a person's prompt,
// and not before a continuation's, which shows the list in its own block.
func TestPromptTextContext(t *testing.T) {
	a := &Agent{}
	ctx := "This session has a todo list\n<todo-list>\n 1. ○ x\n</todo-list>\n"
	tests := []struct {
		turn agent.Turn
		want string
	}{
		{agent.Turn{Prompt: "go on", TodoContext: ctx}, strings.TrimSpace(ctx) + "\n\ngo on"},
		{agent.Turn{Prompt: "You stopped\n<todo-list>\n 1. ○ x\n</todo-list>\n", TodoContext: ctx, Continuation: true},
			"You stopped\n<todo-list>\n 1. ○ x\n</todo-list>\n"},
		{agent.Turn{Prompt: "hi"}, "hi"},
	}
	for _, tt := range tests {
		if got := a.promptText(&process{}, tt.turn); got != tt.want {
			t.Errorf("promptText(%+v) = %q, want %q", tt.turn, got, tt.want)
		}
	}
}
