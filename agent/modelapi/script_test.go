package modelapi

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/todosh/todosh/todolist"
	"github.com/todosh/todosh/todoview"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/agent/todotools"
	"github.com/todosh/todosh/continuation"
	"github.com/todosh/todosh/todostore"
)

func TestParseScriptErrors(t *testing.T) {
	tests := []struct{ script, want string }{
		{``, "script: parse: EOF"},
		{`{"replies":[{"txt":"typo"}]}`, `unknown field "txt"`},
		{`{"replies":[{"tool_calls":[{"arguments":{}}]}]}`, "script: reply 1 tool call 1: name is empty"},
		{`[{"text":"a"}] [`, "data after the JSON value"},
		{`{"replies":{}}`, "cannot unmarshal object"},
		{`"hello"`, "cannot unmarshal string"},
	}
	for _, tc := range tests {
		if _, err := ParseScript([]byte(tc.script)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseScript(%q) = %v, want %q", tc.script, err, tc.want)
		}
	}
}

func TestScriptBackend(t *testing.T) {
	script := `[
		{"text": "Planning.\n", "tool_calls": [{"name": "todo_write", "arguments": {"todos": [{"content": "A", "status": "pending"}]}}]},
		{"text": "Oops.", "tool_calls": [{"name": "todo_write", "arguments": "{\"todos\": ["}, {"name": "todo_read"}]},
		{"text": "Stopping here for now."}
	]`
	sess := testSession(t, nil)
	b, err := NewScript([]byte(script), sess, true)
	if err != nil {
		t.Fatal(err)
	}
	if b.Name() != "script" || b.TodoTool() != "todo_write" {
		t.Errorf("name %q tool %q", b.Name(), b.TodoTool())
	}
	var rec recorder
	res, err := b.RunTurn(context.Background(), agent.Turn{Prompt: "go"}, rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	if res.FinalText != "Stopping here for now." || rec.text() != "Planning.\nOops.Stopping here for now." {
		t.Errorf("result %+v text %q", res, rec.text())
	}
	lines := rec.lines(agent.EventToolCall)
	if len(lines) != 3 || !strings.Contains(lines[1], "todo_write → error: todo_write: arguments are not valid JSON") || lines[2] != "todo_read" {
		t.Errorf("tool lines %q", lines)
	}
	if got := loadTodos(t, sess); len(got) != 1 || got[0].Content != "A" {
		t.Errorf("list %+v", got)
	}
	// Out of replies: plain text, every time, no tool calls.
	for i := 0; i < 2; i++ {
		res, err = b.RunTurn(context.Background(), agent.Turn{Prompt: "more", Continuation: true}, rec.emit)
		if err != nil || res.FinalText != ScriptEnded {
			t.Errorf("after the end: %+v %v", res, err)
		}
	}
	// Require evidence reaches the tools.
	b2, _ := NewScript([]byte(`[{"tool_calls":[{"name":"todo_write","arguments":{"todos":[{"content":"A","status":"completed"}]}}]}]`), testSession(t, nil), true)
	rec = recorder{}
	b2.RunTurn(context.Background(), agent.Turn{Prompt: "go"}, rec.emit)
	if l := rec.lines(agent.EventToolCall); len(l) != 1 || !strings.Contains(l[0], "without evidence") {
		t.Errorf("require evidence: %q", l)
	}
}

func TestScriptStreamingAndCancel(t *testing.T) {
	s, err := ParseScript([]byte(`{"replies":[{"text":"one two  three\nfour"}],"end_text":"bye"}`))
	if err != nil {
		t.Fatal(err)
	}
	var pieces []string
	m, err := s.Complete(context.Background(), Request{}, func(p string) { pieces = append(pieces, p) })
	if err != nil || m.Content != "one two  three\nfour" || strings.Join(pieces, "|") != "one |two  |three\n|four" {
		t.Errorf("pieces %q, message %+v, %v", pieces, m, err)
	}
	if m, _ := s.Complete(context.Background(), Request{}, func(string) {}); m.Content != "bye" || s.Remaining() != 0 {
		t.Errorf("end text %q", m.Content)
	}

	// Cancelling during the delay returns ctx.Err() and does not consume
	// the reply.
	s, _ = ParseScript([]byte(`[{"text":"a b c"}]`))
	s.Delay = time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	_, err = s.Complete(ctx, Request{}, func(string) { cancel() })
	if err != context.Canceled || s.Remaining() != 1 {
		t.Errorf("err %v, remaining %d", err, s.Remaining())
	}
}

// TestDemo plays the embedded demo the way the shell does: the person's
// prompts, the continuation policy deciding after every turn, and the todo
// context given with each prompt. It checks the story the demo tells: plan,
// progress, a lazy stop that is continued, a pause that asks the person,
// and completion after the person's answer.
func TestDemo(t *testing.T) {
	sess := testSession(t, nil)
	b, err := NewDemo(sess)
	if err != nil {
		t.Fatal(err)
	}
	if b.Name() != "demo" || b.model.(*Script).Delay != DemoDelay {
		t.Errorf("name %q", b.Name())
	}
	b.SetDelay(0)
	prompts := DemoPrompts()
	if len(prompts) != 2 {
		t.Fatalf("demo prompts %q", prompts)
	}
	pol := continuation.New()
	var decisions []string
	var rec recorder
	// The demo is run twice in one shell: the second time starts over, on
	// a list emptied as the shell archives a finished one.
	for i, p := range slices.Concat(prompts, prompts) {
		if i == len(prompts) {
			if _, err := sess.Update(func(s *todostore.Session) error { s.Todos = nil; return nil }); err != nil {
				t.Fatal(err)
			}
		}
		pol.PersonPrompt()
		turn := agent.Turn{Prompt: p, TodoContext: continuation.TodoContext(loadTodos(t, sess))}
		for {
			before := loadTodos(t, sess)
			res, err := b.RunTurn(context.Background(), turn, rec.emit)
			after := loadTodos(t, sess)
			d := pol.Decide(continuation.Turn{Err: err, Paused: res.Paused, PauseReason: res.PauseReason,
				Before: before, After: after, FinalText: res.FinalText}, continuation.Tools{Todo: b.TodoTool(), Positional: true, Tick: todotools.Tick, Pause: todotools.Pause})
			decisions = append(decisions, d.Line)
			if !d.Continue {
				break
			}
			turn = agent.Turn{Prompt: d.Prompt, Continuation: true, TodoContext: continuation.TodoContext(after)}
		}
	}
	want := []string{
		"continuing 1/3 — 2 open items",
		`stopped: paused — "Should the tests use only the standard testing package, or may I add testify?"`,
		"all done",
	}
	want = slices.Concat(want, want)
	t.Logf("decisions: %q", decisions)
	if strings.Join(decisions, "\n") != strings.Join(want, "\n") {
		t.Errorf("decisions\n%s\nwant\n%s", strings.Join(decisions, "\n"), strings.Join(want, "\n"))
	}
	final := loadTodos(t, sess)
	if !todolist.AllDone(final) || len(final) != 3 || len(final[1].Subtasks) != 3 {
		t.Errorf("final list:\n%s", todoview.FormatList(final))
	}
	if final[0].Evidence == "" || final[1].Subtasks[0].Evidence == "" || final[2].Evidence == "" {
		t.Errorf("evidence lost:\n%s", todoview.FormatList(final))
	}
	if n := b.model.(*Script).Remaining(); n != 0 {
		t.Errorf("%d demo replies not played", n)
	}
	for _, l := range rec.lines(agent.EventToolCall) {
		if strings.Contains(l, "error") {
			t.Errorf("demo tool call failed: %s", l)
		}
	}
	if rec.count(agent.EventPause) != 2 || rec.count(agent.EventTodos) != 14 { // twice the demo
		t.Errorf("%d pauses, %d list changes", rec.count(agent.EventPause), rec.count(agent.EventTodos))
	}
	if _, err := sess.Store.Load(sess.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := NewDemo(testSession(t, nil)); err != nil {
		t.Fatal(err)
	}
}
