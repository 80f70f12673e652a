package clis

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/todosh/todosh/foreignlists"
	"github.com/todosh/todosh/todolist"
)

func fixture(t testing.TB, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "fake", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// lastList is the last list a stream reported, as "text:status".
func lastList(us []Update) []string {
	todos := ofKind(us, UpdateTodos)
	if len(todos) == 0 {
		return nil
	}
	return listShow(todos[len(todos)-1].Todos)
}

func TestQwenStream(t *testing.T) {
	us := collect(t, NewQwenParser(), fixture(t, "qwen-run1.jsonl"))
	if s := ofKind(us, UpdateSession); len(s) != 1 || s[0].Text != "7c1f2b0e-3d4a-4f5b-9c6d-1e2f3a4b5c6d" {
		t.Errorf("session %v", s)
	}
	want := []string{"Create project skeleton for csvkit-lite:completed", "Implement CSV parser with quoted-field support:in_progress", "Write unit tests for the parser:pending"}
	if got := lastList(us); !reflect.DeepEqual(got, want) {
		t.Errorf("list %q", got)
	}
	var tools, ends []string
	for _, u := range ofKind(us, UpdateToolCall) {
		if u.Text != "" {
			tools = append(tools, u.Text)
		} else if u.Tool != nil {
			ends = append(ends, fmt.Sprintf("%s %s %q %d", u.Tool.Name, u.Tool.Kind, u.Tool.Target, u.Tool.State))
		}
	}
	if !reflect.DeepEqual(tools, []string{"todo_write 3 items", "run_shell_command mkdir -p csvkit_lite && touch csvkit_lite/__init__.py", "todo_write 3 items"}) {
		t.Errorf("tool lines %q", tools)
	}
	// Each call's end, for receipts: the command is an execute that
	// succeeded.
	if want := []string{`todo_write other "" 1`, `run_shell_command execute "mkdir -p csvkit_lite && touch csvkit_lite/__init__.py" 1`, `todo_write other "" 1`}; !reflect.DeepEqual(ends, want) {
		t.Errorf("tool ends %q, want %q", ends, want)
	}
	if e := ofKind(us, UpdateTurnEnd); len(e) != 1 || !strings.HasPrefix(e[0].Text, "I've set up the project skeleton") {
		t.Errorf("turn end %v", e)
	}
	if n := len(ofKind(us, UpdateNoTodoTool)) + len(ofKind(us, UpdateNotice)); n != 0 {
		t.Errorf("notices for a stream with todo_write: %v", us)
	}
	// A failed turn: Qwen puts the message in .error.message.
	fail := `{"type":"result","subtype":"error_during_execution","uuid":"r","session_id":"s","is_error":true,"duration_ms":1,"duration_api_ms":0,"num_turns":1,"usage":{"input_tokens":0,"output_tokens":0},"permission_denials":[],"error":{"message":"[API Error: Connection error.]"}}` + "\n"
	if e := ofKind(collect(t, NewQwenParser(), fail), UpdateError); len(e) != 1 || e[0].Text != "[API Error: Connection error.]" {
		t.Errorf("error %v", e)
	}
	// Without todo_write among its tools the list cannot be kept.
	noTool := `{"type":"system","subtype":"init","uuid":"s","session_id":"s","cwd":"/x","tools":["read_file","edit"],"mcp_servers":[],"model":"qwen3-coder-plus","permission_mode":"default","slash_commands":[],"qwen_code_version":"0.2.1","agents":[]}` + "\n"
	if n := ofKind(collect(t, NewQwenParser(), noTool), UpdateNoTodoTool); len(n) != 1 || !strings.Contains(n[0].Text, "todo_write") {
		t.Errorf("no-todo-tool %v", n)
	}
}

// TestQwenLiveAgreesWithSaved: the list todosh mirrors from Qwen's live
// todo_write calls is the list it imports from the file Qwen saves of the
// same call (~/.qwen/todos/<session>.json, read by foreignlists).
func TestQwenLiveAgreesWithSaved(t *testing.T) {
	us := collect(t, NewQwenParser(), fixture(t, "qwen-run1.jsonl"))
	live := ofKind(us, UpdateTodos)
	// Qwen's TodoWriteTool saves the call's todos as {"todos": [...]}.
	var last struct {
		Message struct {
			Content []struct {
				Input json.RawMessage `json:"input"`
			} `json:"content"`
		} `json:"message"`
	}
	lines := strings.Split(strings.TrimSpace(fixture(t, "qwen-run1.jsonl")), "\n")
	for _, l := range lines {
		if strings.Contains(l, `"todo_write"`) {
			if err := json.Unmarshal([]byte(l), &last); err != nil {
				t.Fatal(err)
			}
		}
	}
	path := filepath.Join(t.TempDir(), "7c1f2b0e.json")
	if err := os.WriteFile(path, last.Message.Content[0].Input, 0o600); err != nil {
		t.Fatal(err)
	}
	saved, err := foreignlists.LoadForeign(foreignlists.ForeignEntry{Source: foreignlists.SourceQwen, Path: path, Name: "7c1f2b0e"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := listShow(saved), listShow(live[len(live)-1].Todos); !reflect.DeepEqual(got, want) {
		t.Errorf("saved %q\nlive %q", got, want)
	}
}

func TestPiStream(t *testing.T) {
	p := &PiParser{}
	us := collect(t, p, fixture(t, "pi-run1.jsonl"))
	if s := ofKind(us, UpdateSession); len(s) != 1 || s[0].Text != "0193f2a4-5b6c-7d8e-9f00-112233445566" {
		t.Errorf("session %v", s)
	}
	want := []string{"Create project skeleton for csvkit-lite:completed", "Implement CSV parser with quoted-field support:pending", "Write unit tests for the parser:pending"}
	if got := lastList(us); !reflect.DeepEqual(got, want) {
		t.Errorf("list %q", got)
	}
	// Text from message_end only: the partial snapshot is not repeated.
	var text []string
	for _, u := range ofKind(us, UpdateText) {
		text = append(text, u.Text)
	}
	if !reflect.DeepEqual(text, []string{"I'll break this work into a todo list first.\n", "I've set up the project skeleton and started on the parser. I'll stop here for now.\n"}) {
		t.Errorf("text %q", text)
	}
	if n := ofKind(us, UpdateNoTodoTool); len(n) != 0 {
		t.Errorf("no-todo-tool for a stream with todo: %v", n)
	}
	// In progress is kept from the list before, as done:false says nothing.
	p = &PiParser{Prev: []todolist.Todo{{Content: "Write unit tests for the parser", Status: todolist.InProgress}}}
	if first := ofKind(collect(t, p, fixture(t, "pi-resume.jsonl")), UpdateTodos); len(first) != 2 || listShow(first[0].Todos)[2] != "Write unit tests for the parser:in_progress" {
		t.Errorf("in progress lost: %v", first)
	}
	retry := `{"type":"auto_retry_start","attempt":2,"maxAttempts":3,"delayMs":4000,"errorMessage":"429 Too Many Requests"}` + "\n" +
		`{"type":"auto_retry_end","success":false,"attempt":3,"finalError":"429 Too Many Requests"}` + "\n" +
		`{"type":"agent_end","messages":[]}` + "\n"
	us = collect(t, &PiParser{}, retry)
	if s := ofKind(us, UpdateStatus); len(s) != 1 || s[0].Text != "API retry 2/3 in 4s: 429 Too Many Requests" {
		t.Errorf("status %v", s)
	}
	if e := ofKind(us, UpdateError); len(e) != 1 || e[0].Text != "429 Too Many Requests" {
		t.Errorf("error %v", e)
	}
	if n := ofKind(us, UpdateNoTodoTool); len(n) != 1 {
		t.Errorf("a turn without the todo tool: %v", n)
	}
	failed := `{"type":"message_end","message":{"role":"assistant","content":[],"api":"openai-completions","provider":"openai","model":"m","usage":{},"stopReason":"error","errorMessage":"Connection error.","timestamp":1}}` + "\n" + `{"type":"agent_end","messages":[]}` + "\n"
	if e := ofKind(collect(t, &PiParser{}, failed), UpdateError); len(e) != 1 || e[0].Text != "Connection error." {
		t.Errorf("failed message %v", e)
	}
}

// TestGeminiModelWithoutTodos: Gemini's 3.x previews are not offered
// write_todos, which its init line's model shows.
func TestGeminiModelWithoutTodos(t *testing.T) {
	gem := `{"type":"init","timestamp":"2026-11-21T22:38:15.458Z","session_id":"g","model":"gemini-3-pro-preview"}` + "\n"
	if n := ofKind(collect(t, &GeminiParser{}, gem), UpdateNoTodoTool); len(n) != 1 {
		t.Errorf("gemini 3 preview: %v", n)
	}
	if n := ofKind(collect(t, &GeminiParser{}, strings.Replace(gem, "gemini-3-pro-preview", "gemini-2.5-pro", 1)), UpdateNoTodoTool); len(n) != 0 {
		t.Errorf("gemini 2.5: %v", n)
	}
}

// fuzzSeeds adds a fixture whole and line by line.
func fuzzSeeds(f *testing.F, name string) {
	data := fixture(f, name)
	f.Add([]byte(data))
	for _, l := range strings.Split(data, "\n") {
		f.Add([]byte(l + "\n"))
	}
}

func FuzzQwen(f *testing.F) {
	fuzzSeeds(f, "qwen-run1.jsonl")
	fuzzSeeds(f, "qwen-resume.jsonl")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzStream(t, NewQwenParser(), data) })
}

func FuzzPi(f *testing.F) {
	fuzzSeeds(f, "pi-run1.jsonl")
	fuzzSeeds(f, "pi-resume.jsonl")
	f.Add([]byte(`{"type":"auto_retry_start","attempt":1,"maxAttempts":3,"delayMs":2000,"errorMessage":"x"}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzStream(t, &PiParser{Prev: []todolist.Todo{{Content: "Implement CSV parser with quoted-field support", Status: todolist.InProgress}}}, data)
	})
}

// TestListHintsFit: the line that says what to change when a CLI cannot
// keep a list is shown whole (a notice is cut at 120 characters), and
// Qwen Code's names the setting 0.24 needs for todo_write.
func TestListHintsFit(t *testing.T) {
	for _, c := range clisTable {
		if line := c.name + ": " + c.listHint; utf8.RuneCountInString(line) > 120 {
			t.Errorf("%s: hint of %d characters: %q", c.name, utf8.RuneCountInString(line), line)
		}
	}
	q, err := lookup("qwen")
	if err != nil || !strings.Contains(q.listHint, `"todoWrite": {"enabled": true}`) {
		t.Errorf("qwen hint %q (%v)", q.listHint, err)
	}
}
