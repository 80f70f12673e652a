package clis

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/todosh/todosh/todolist"
	"github.com/todosh/todosh/todoview"

	"github.com/todosh/todosh/agent"
)

var update = flag.Bool("update", false, "rewrite golden files")

// transcriptFiles is every recorded transcript; the tests run over all.
func transcriptFiles(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob("testdata/transcripts/*/*.jsonl")
	if err != nil || len(files) < 7 {
		t.Fatalf("transcripts: %v (found %d)", err, len(files))
	}
	return files
}

// parserFor picks the parser by the transcript's folder.
func parserFor(path string) Parser {
	switch {
	case strings.Contains(path, "qwen"):
		return NewQwenParser()
	case strings.Contains(path, "claude"):
		return &ClaudeParser{}
	case strings.Contains(path, "codex"):
		return &CodexParser{}
	default:
		return &GeminiParser{}
	}
}

func readLines(t testing.TB, path string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))
}

// reported is the list a CLI itself reported on a line, decoded with
// encoding/json (not the scanner), or nil when the line reports none.
type reported struct {
	todos []todolist.Todo
	// for Task results: one task's new status
	taskID, taskStatus string
}

func reportedOn(t *testing.T, kind string, line []byte) *reported {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatalf("transcript line is not JSON: %v", err)
	}
	switch kind {
	case "claude":
		res, _ := m["tool_use_result"].(map[string]any)
		if res == nil {
			return nil
		}
		if nt, ok := res["newTodos"].([]any); ok {
			var r reported
			for _, x := range nt {
				o := x.(map[string]any)
				r.todos = append(r.todos, todolist.Todo{Content: o["content"].(string), Status: todolist.Status(o["status"].(string)), ActiveForm: o["activeForm"].(string)})
			}
			return &r
		}
		if sc, ok := res["statusChange"].(map[string]any); ok {
			return &reported{taskID: res["taskId"].(string), taskStatus: sc["to"].(string)}
		}
		if task, ok := res["task"].(map[string]any); ok {
			return &reported{taskID: task["id"].(string), taskStatus: "pending"}
		}
	case "codex":
		item, _ := m["item"].(map[string]any)
		if item == nil || item["type"] != "todo_list" {
			return nil
		}
		var r reported
		for _, x := range item["items"].([]any) {
			o := x.(map[string]any)
			st := todolist.Pending
			if o["completed"].(bool) {
				st = todolist.Completed
			}
			r.todos = append(r.todos, todolist.Todo{Content: o["text"].(string), Status: st})
		}
		return &r
	case "qwen":
		msg, _ := m["message"].(map[string]any)
		if m["type"] != "assistant" || msg == nil {
			return nil
		}
		for _, b := range msg["content"].([]any) {
			o := b.(map[string]any)
			if o["type"] != "tool_use" || o["name"] != "todo_write" {
				continue
			}
			var r reported
			for _, x := range o["input"].(map[string]any)["todos"].([]any) {
				td := x.(map[string]any)
				r.todos = append(r.todos, todolist.Todo{Content: td["content"].(string), Status: todolist.Status(td["status"].(string))})
			}
			return &r
		}
	case "gemini":
		if m["type"] != "tool_use" || m["tool_name"] != "write_todos" {
			return nil
		}
		var r reported
		for _, x := range m["parameters"].(map[string]any)["todos"].([]any) {
			o := x.(map[string]any)
			r.todos = append(r.todos, todolist.Todo{Content: o["description"].(string), Status: todolist.Status(o["status"].(string))})
		}
		return &r
	}
	return nil
}

// TestTranscriptListsMatchCLI replays every transcript and checks that the
// list after each todo event equals the one the CLI itself reported.
func TestTranscriptListsMatchCLI(t *testing.T) {
	for _, path := range transcriptFiles(t) {
		t.Run(filepath.Base(filepath.Dir(path))+"/"+filepath.Base(path), func(t *testing.T) {
			kind := strings.SplitN(filepath.Base(filepath.Dir(path)), "-", 2)[0]
			p := parserFor(path)
			var (
				list []todolist.Todo
				ct   ClaudeTasks
			)
			checks := 0
			for n, line := range readLines(t, path) {
				if err := parseLine(p, line, func(u Update) {
					switch u.Kind {
					case UpdateTodos:
						list = u.Todos
					case UpdateTask:
						var err error
						if list, _, err = ct.Apply(list, *u.Task); err != nil {
							t.Fatal(err)
						}
					}
				}); err != nil {
					t.Fatalf("line %d: %v", n+1, err)
				}
				want := reportedOn(t, kind, line)
				if want == nil {
					continue
				}
				checks++
				if want.todos != nil {
					if !reflect.DeepEqual(list, want.todos) {
						t.Fatalf("line %d: list\n%v\nwant\n%v", n+1, list, want.todos)
					}
					continue
				}
				// A task result: the task's item has the status Claude says.
				i := ct.find(want.taskID)
				k := -1
				if i >= 0 {
					k = ct.itemOf(list, i, ct.Tasks[i].Subject)
				}
				if k < 0 || string(list[k].Status) != want.taskStatus {
					t.Fatalf("line %d: task %s: list %v, want status %s", n+1, want.taskID, list, want.taskStatus)
				}
			}
			if checks == 0 {
				t.Fatal("no todo event checked")
			}
		})
	}
}

// TestTranscriptGolden pins every update each transcript produces.
func TestTranscriptGolden(t *testing.T) {
	for _, path := range transcriptFiles(t) {
		name := filepath.Base(filepath.Dir(path)) + "_" + strings.TrimSuffix(filepath.Base(path), ".jsonl")
		t.Run(name, func(t *testing.T) {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var (
				b    strings.Builder
				list []todolist.Todo
				ct   ClaudeTasks
			)
			if err := ParseStream(f, "test", parserFor(path), func(u Update) {
				b.WriteString(formatUpdate(u))
				if u.Kind == UpdateTask {
					// The list after the task's change, as the runner
					// applies it to an empty session.
					next, _, err := ct.Apply(list, *u.Task)
					if err != nil {
						t.Fatal(err)
					}
					if !reflect.DeepEqual(next, list) {
						b.WriteString("todos:\n" + todoview.FormatList(next))
					}
					list = next
				}
			}); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "golden", name+".golden")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if b.String() != string(want) {
				t.Errorf("updates differ from %s:\n%s", golden, b.String())
			}
		})
	}
}

var kindNames = map[UpdateKind]string{UpdateSession: "session", UpdateText: "text", UpdateToolCall: "tool", UpdateTodos: "todos", UpdateError: "error", UpdateTurnEnd: "end", UpdateNotice: "notice", UpdateTask: "task", UpdateNoTodoTool: "no todo tool", UpdateStatus: "status", UpdateUsage: "usage"}

func formatUpdate(u Update) string {
	switch u.Kind {
	case UpdateTodos:
		todolist.Normalize(u.Todos)
		return "todos:\n" + todoview.FormatList(u.Todos)
	case UpdateTask:
		return "task: " + formatTask(*u.Task) + "\n"
	case UpdateTools:
		return fmt.Sprintf("tools: %q load %q\n", u.Text, u.Load)
	case UpdateToolCall:
		if t := u.Tool; t != nil {
			st := [...]string{"started", "succeeded", "failed"}[t.State]
			exit := ""
			if t.Exit != nil {
				exit = fmt.Sprintf(" exit %d", *t.Exit)
			}
			if t.State == agent.ToolStarted {
				return fmt.Sprintf("tool: %q (%s %s %s %q)\n", u.Text, t.Name, t.Kind, st, t.Target)
			}
			return fmt.Sprintf("tool end: %s %s %s%s\n", t.ID, t.Name, st, exit)
		}
	case UpdateUsage:
		return fmt.Sprintf("usage: %d in, %d out\n", u.Usage.Input, u.Usage.Output)
	}
	return fmt.Sprintf("%s: %q\n", kindNames[u.Kind], u.Text)
}

// formatTask writes a task operation as one line: "create #1 \"text\"",
// "update #2 completed", "delete #3".
func formatTask(op TaskOp) string {
	switch {
	case op.Create:
		return fmt.Sprintf("create #%s %q", op.ID, op.Subject)
	case op.Delete:
		return "delete #" + op.ID
	}
	s := "update #" + op.ID
	if op.Status != "" {
		s += " " + string(op.Status)
	}
	if op.Subject != "" {
		s += fmt.Sprintf(" %q", op.Subject)
	}
	return s
}

// collect parses a whole stream and returns its updates.
func collect(t *testing.T, p Parser, stream string) []Update {
	t.Helper()
	var out []Update
	if err := ParseStream(strings.NewReader(stream), "test", p, func(u Update) { out = append(out, u) }); err != nil {
		t.Fatal(err)
	}
	return out
}

func ofKind(us []Update, k UpdateKind) []Update {
	var out []Update
	for _, u := range us {
		if u.Kind == k {
			out = append(out, u)
		}
	}
	return out
}

func TestSubAgentLinesIgnored(t *testing.T) {
	sub := `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"TodoWrite","input":{"todos":[{"content":"sub item","status":"pending","activeForm":"x"}]}},{"type":"text","text":"sub text"}]},"parent_tool_use_id":"toolu_parent","session_id":"s"}` + "\n"
	subTask := `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t2","name":"TaskCreate","input":{"subject":"sub task"}}]},"parent_tool_use_id":"toolu_parent"}` + "\n" +
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t2","content":"Task #9 created successfully: sub task"}]},"parent_tool_use_id":"toolu_parent","tool_use_result":{"task":{"id":"9"}}}` + "\n"
	main := `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t3","name":"TodoWrite","input":{"todos":[{"content":"main item","status":"in_progress","activeForm":"y"}]}}]},"parent_tool_use_id":null}` + "\n"
	us := collect(t, &ClaudeParser{}, sub+subTask+main)
	todos := ofKind(us, UpdateTodos)
	if len(todos) != 1 || todos[0].Todos[0].Content != "main item" {
		t.Fatalf("todo updates %v, want only the main agent's", todos)
	}
	if n := len(ofKind(us, UpdateText)) + len(ofKind(us, UpdateNotice)); n != 0 {
		t.Fatalf("sub-agent text or notices shown: %v", us)
	}
}

func TestUnknownTypesSkipped(t *testing.T) {
	streams := map[string]Parser{
		`{"type":"stream_event","event":{"delta":"x"}}` + "\n" + `{"type":"system","subtype":"compact_boundary"}` + "\n":                                                     &ClaudeParser{},
		`{"type":"turn.started"}` + "\n" + `{"type":"item.completed","item":{"id":"i","type":"reasoning","text":"hmm"}}` + "\n" + `{"type":"future.thing","x":[1,2]}` + "\n": &CodexParser{},
		`{"type":"tool_result","tool_id":"x","status":"success"}` + "\n" + `{"type":"message","role":"user","content":"hi"}` + "\n" + `{"type":"telemetry"}` + "\n":          &GeminiParser{},
	}
	for s, p := range streams {
		if us := collect(t, p, s); len(us) != 0 {
			t.Errorf("%T: updates %v for unknown events", p, us)
		}
	}
}

func TestMalformedReportedOnce(t *testing.T) {
	good := `{"type":"item.completed","item":{"id":"i","type":"agent_message","text":"hello"}}`
	stream := strings.Join([]string{good, `{"type":"item.completed","item":{"id":`, "not json at all", good, `{"type":"thread.started","thread_id":"a"} trailing}`, good}, "\n") + "\n"
	us := collect(t, &CodexParser{}, stream)
	notices := ofKind(us, UpdateNotice)
	if len(notices) != 2 {
		t.Fatalf("notices %v, want the first malformed line and a count", notices)
	}
	if !strings.Contains(notices[0].Text, "line 2") || !strings.Contains(notices[1].Text, "3 malformed") {
		t.Errorf("notices %v", notices)
	}
	if texts := ofKind(us, UpdateText); len(texts) != 3 {
		t.Errorf("texts %v, want the 3 good lines", texts)
	}
	// One malformed line: one notice, no count.
	us = collect(t, &CodexParser{}, good+"\n{oops}\n"+good+"\n")
	if n := len(ofKind(us, UpdateNotice)); n != 1 {
		t.Errorf("%d notices for one malformed line", n)
	}
}

func TestHugeLine(t *testing.T) {
	big := strings.Repeat(`xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx a\"b\\ `, (11<<20)/80)
	stream := `{"type":"system","subtype":"init","session_id":"s1","tools":["TodoWrite"]}` + "\n" +
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"x","content":"` + big + `"}]},"parent_tool_use_id":null}` + "\n" +
		`{"type":"assistant","message":{"content":[{"type":"text","text":"` + big + `"},{"type":"tool_use","id":"t","name":"TodoWrite","input":{"todos":[{"content":"after the big line","status":"pending"}]}}]},"parent_tool_use_id":null}` + "\n"
	if len(stream) < 20<<20 {
		t.Fatalf("stream only %d bytes", len(stream))
	}
	us := collect(t, &ClaudeParser{}, stream)
	if n := len(ofKind(us, UpdateNotice)); n != 0 {
		t.Fatalf("notices %v", ofKind(us, UpdateNotice))
	}
	texts := ofKind(us, UpdateText)
	if len(texts) != 1 || len(texts[0].Text) < 10<<20 {
		t.Fatalf("the >10 MiB text was not passed on whole")
	}
	todos := ofKind(us, UpdateTodos)
	if len(todos) != 1 || todos[0].Todos[0].Content != "after the big line" {
		t.Fatalf("todos %v", todos)
	}
}

// TestErrorEvents: each error a CLI reports is the turn's error (or, for
// trouble it works through — retries, reconnects, rate limits — a status),
// and nothing else.
func TestErrorEvents(t *testing.T) {
	cases := []struct {
		p      Parser
		stream string
		want   string
		kind   UpdateKind // UpdateError when zero
	}{
		{&ClaudeParser{}, `{"type":"system","subtype":"api_retry","attempt":2,"max_retries":10,"retry_delay_ms":1500,"error_status":529,"error":"overloaded_error","session_id":"s","uuid":"u"}`, "API retry 2/10 in 1.5s: overloaded_error 529", UpdateStatus},
		{&ClaudeParser{}, `{"type":"system","subtype":"api_retry","attempt":3,"max_retries":10,"retry_delay_ms":2164.0826966758397,"error_status":null,"error":"unknown","session_id":"s","uuid":"u"}`, "API retry 3/10 in 2.2s: unknown", UpdateStatus},
		{&ClaudeParser{}, `{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","rateLimitType":"five_hour"},"session_id":"s"}`, "rate limited five_hour", UpdateStatus},
		{&CodexParser{}, `{"type":"error","message":"Reconnecting... 2/5 (stream disconnected before completion: error sending request for url (http://127.0.0.1:9/v1/responses))"}`, "Reconnecting... 2/5 (stream disconnected before completion: error sending request for url (http://127.0.0.1:9/v1/responses))", UpdateStatus},
		{&ClaudeParser{}, `{"type":"result","subtype":"success","is_error":true,"result":"API Error: 401 invalid key","session_id":"s"}`, "API Error: 401 invalid key", 0},
		{&ClaudeParser{}, `{"type":"result","subtype":"error_max_turns","is_error":false,"session_id":"s"}`, "turn ended with error_max_turns", 0},
		{&ClaudeParser{}, `{"type":"result","subtype":"error_during_execution","is_error":true,"errors":["boom","bang"]}`, "boom; bang", 0},
		{&CodexParser{}, `{"type":"turn.failed","error":{"message":"stream disconnected"}}`, "stream disconnected", 0},
		{&CodexParser{}, `{"type":"error","message":"quota exceeded"}`, "quota exceeded", 0},
		{&GeminiParser{}, `{"type":"error","severity":"error","message":"model overloaded"}`, "model overloaded", 0},
		{&GeminiParser{}, `{"type":"result","status":"error","error":{"type":"FatalError","message":"auth failed"}}`, "auth failed", 0},
	}
	for _, c := range cases {
		if c.kind == 0 {
			c.kind = UpdateError
		}
		us := collect(t, c.p, c.stream+"\n")
		us = slices.DeleteFunc(us, func(u Update) bool { return u.Kind == UpdateSession })
		if len(us) != 1 || us[0].Kind != c.kind || us[0].Text != c.want {
			t.Errorf("%T %s: updates %v, want %q of kind %d", c.p, c.stream, us, c.want, c.kind)
		}
	}
	// A warning is a notice, not the turn's error.
	us := collect(t, &GeminiParser{}, `{"type":"error","severity":"warning","message":"loop detected"}`+"\n")
	if len(ofKind(us, UpdateError)) != 0 || len(ofKind(us, UpdateNotice)) != 1 {
		t.Errorf("gemini warning: %v", us)
	}
}

func TestGeminiStatusMapping(t *testing.T) {
	line := `{"type":"tool_use","tool_name":"write_todos","tool_id":"w","parameters":{"todos":[` +
		`{"description":"a","status":"pending"},{"description":"b","status":"in_progress"},{"description":"c","status":"completed"},` +
		`{"description":"d","status":"cancelled"},{"description":"e","status":"blocked"},{"description":"f","status":"weird"},{"description":"  ","status":"pending"}]}}`
	todos := ofKind(collect(t, &GeminiParser{}, line+"\n"), UpdateTodos)
	got := ""
	for _, td := range todos[0].Todos {
		got += td.Content + "=" + string(td.Status) + " "
	}
	if want := "a=pending b=in_progress c=completed d=cancelled e=pending f=pending "; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestCodexKeepsInProgress(t *testing.T) {
	p := &CodexParser{Prev: []todolist.Todo{{Content: "one", Status: todolist.Completed}, {Content: "two", Status: todolist.InProgress}}}
	line := `{"type":"item.updated","item":{"id":"i","type":"todo_list","items":[{"text":"one","completed":true},{"text":"two","completed":false},{"text":"three","completed":false}]}}`
	todos := ofKind(collect(t, p, line+"\n"), UpdateTodos)[0].Todos
	if todos[1].Status != todolist.InProgress || todos[2].Status != todolist.Pending || todos[0].Status != todolist.Completed {
		t.Errorf("statuses %v", todos)
	}
	// Once completed it is completed; reopening it makes it pending.
	line2 := `{"type":"item.updated","item":{"id":"i","type":"todo_list","items":[{"text":"one","completed":true},{"text":"two","completed":true},{"text":"three","completed":false}]}}`
	line3 := `{"type":"item.updated","item":{"id":"i","type":"todo_list","items":[{"text":"one","completed":true},{"text":"two","completed":false},{"text":"three","completed":false}]}}`
	us := ofKind(collect(t, p, line2+"\n"+line3+"\n"), UpdateTodos)
	if us[1].Todos[1].Status != todolist.Pending {
		t.Errorf("reopened item %v", us[1].Todos[1])
	}
}

// TestCodexReportsTodoshTool: a call of todosh's todo_write through MCP
// (lines as codex exec --json 0.169.0 wrote them) makes it the session's
// todo tool, once; another server's tool, or a run without todosh's
// server, reports nothing.
func TestCodexReportsTodoshTool(t *testing.T) {
	call := func(phase, server, tool string) string {
		return `{"type":"item.` + phase + `","item":{"id":"item_1","type":"mcp_tool_call","server":"` + server + `","tool":"` + tool +
			`","arguments":{"todos":[{"content":"Create project skeleton","status":"in_progress"}]},"result":null,"error":null,"status":"in_progress"}}` + "\n"
	}
	todosh := []string{"mcp__todosh__todo_write", "mcp__todosh__todo_read", "mcp__todosh__todo_tick", "mcp__todosh__todo_pause"}
	for _, tt := range []struct {
		name   string
		mcp    []string
		stream string
		want   []string
	}{
		{"todosh's todo_write", todosh, call("started", "todosh", "todo_write") + call("completed", "todosh", "todo_write") +
			strings.Replace(call("started", "todosh", "todo_write"), "item_1", "item_2", 1), []string{"mcp__todosh__todo_write"}},
		{"todosh's todo_tick", todosh, call("started", "todosh", "todo_tick"), nil},
		{"another server", todosh, call("started", "docs", "todo_write"), nil},
		{"no todosh server", nil, call("started", "todosh", "todo_write"), nil},
	} {
		var got []string
		for _, u := range ofKind(collect(t, &CodexParser{MCPTools: tt.mcp}, tt.stream), UpdateTools) {
			got = append(got, u.Text)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: tools %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestClaudeTaskOps: each Task tool result becomes one operation on one
// task; failed calls and calls without a result become none.
func TestClaudeTaskOps(t *testing.T) {
	var ops []string
	p := &ClaudeParser{}
	for _, line := range readLines(t, "testdata/transcripts/claude-tasks/claude-run1.jsonl") {
		if err := parseLine(p, line, func(u Update) {
			if u.Kind == UpdateTask {
				ops = append(ops, formatTask(*u.Task))
			}
		}); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{`create #1 "Create project skeleton for csvkit-lite"`, `create #2 "Implement CSV parser with quoted-field support"`,
		`create #3 "Write unit tests for the parser"`, "update #1 in_progress", "update #2 in_progress", "update #1 completed"}
	if !p.UsesTasks || !reflect.DeepEqual(ops, want) {
		t.Fatalf("ops %q\nwant %q", ops, want)
	}
	stream := `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"u1","name":"TaskUpdate","input":{"taskId":"2","status":"completed"}},{"type":"tool_use","id":"u2","name":"TaskUpdate","input":{"taskId":3,"status":"deleted"}},{"type":"tool_use","id":"u3","name":"TaskUpdate","input":{"taskId":"77","status":"completed"}},{"type":"tool_use","id":"u4","name":"TaskUpdate","input":{"taskId":"1","subject":"Renamed"}},{"type":"tool_use","id":"u5","name":"TaskUpdate","input":{"taskId":"1","status":"blocked"}}]},"parent_tool_use_id":null}
{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"u1","content":"Updated task #2 status"}]},"parent_tool_use_id":null,"tool_use_result":{"success":true,"taskId":"2"}}
{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"u2","content":"Updated task #3 deleted"}]},"parent_tool_use_id":null,"tool_use_result":{"success":true,"taskId":"3"}}
{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"u3","content":"Task not found","is_error":true}]},"parent_tool_use_id":null,"tool_use_result":"Error: Task not found"}
{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"u4","content":"Updated task #1 subject"}]},"parent_tool_use_id":null,"tool_use_result":{"success":true,"taskId":"1"}}
{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"u5","content":"nope"}]},"parent_tool_use_id":null,"tool_use_result":{"success":false}}
`
	ops = nil
	for _, u := range ofKind(collect(t, &ClaudeParser{}, stream), UpdateTask) {
		ops = append(ops, formatTask(*u.Task))
	}
	if want := []string{"update #2 completed", "delete #3", `update #1 "Renamed"`}; !reflect.DeepEqual(ops, want) {
		t.Errorf("ops %q, want %q (failed calls change nothing)", ops, want)
	}
}

// TestClaudeTaskApply: a Task operation changes its one item, found by
// the text last applied, and leaves the person's edits to the rest alone.
func TestClaudeTaskApply(t *testing.T) {
	item := func(text string, st todolist.Status) todolist.Todo {
		return todolist.Todo{Content: text, Status: st}
	}
	P, I, C := todolist.Pending, todolist.InProgress, todolist.Completed
	mine := todolist.Todo{Content: "mine", Status: P, Origin: todolist.OriginPerson}
	tasks := func(pairs ...string) []ClaudeTask {
		var out []ClaudeTask
		for i := 0; i < len(pairs); i += 2 {
			out = append(out, ClaudeTask{ID: pairs[i], Subject: pairs[i+1]})
		}
		return out
	}
	cases := []struct {
		name      string
		todos     []todolist.Todo
		tasks     []ClaudeTask
		op        TaskOp
		want      string // statuses and texts after
		wantTasks []ClaudeTask
		archived  string
	}{
		{"create adds the item", []todolist.Todo{mine}, nil, TaskOp{Create: true, ID: "1", Subject: "a", ActiveForm: "Doing a"},
			"mine:pending a:pending", tasks("1", "a"), ""},
		{"create adopts an unclaimed item with its text", []todolist.Todo{mine}, nil, TaskOp{Create: true, ID: "1", Subject: " mine"},
			"mine:pending", tasks("1", " mine"), ""},
		{"create of a claimed text adds another", []todolist.Todo{item("a", C)}, tasks("1", "a"), TaskOp{Create: true, ID: "2", Subject: "a"},
			"a:completed a:pending", tasks("1", "a", "2", "a"), ""},
		{"create without a subject does nothing", nil, nil, TaskOp{Create: true, ID: "1", Subject: " "}, "", nil, ""},
		{"create without an id adds an item it cannot update", nil, nil, TaskOp{Create: true, Subject: "a"}, "a:pending", nil, ""},
		{"update changes only its item", []todolist.Todo{item("a", C), item("b", P), item("c", C)}, tasks("1", "a", "2", "b", "3", "c"),
			TaskOp{ID: "2", Status: I}, "a:completed b:in_progress c:completed", tasks("1", "a", "2", "b", "3", "c"), ""},
		{"update of an item the person deleted stays deleted", []todolist.Todo{item("b", P)}, tasks("1", "a", "2", "b"),
			TaskOp{ID: "1", Status: C}, "b:pending", tasks("2", "b"), ""},
		{"update of an unknown task does nothing", []todolist.Todo{item("a", P)}, tasks("1", "a"), TaskOp{ID: "9", Status: C}, "a:pending", tasks("1", "a"), ""},
		{"update renames the item and the map", []todolist.Todo{item("a", P)}, tasks("1", "a"), TaskOp{ID: "1", Subject: "b", Status: I},
			"b:in_progress", tasks("1", "b"), ""},
		{"same texts pair in order", []todolist.Todo{item("x", P), item("x", P)}, tasks("1", "x", "2", "x"), TaskOp{ID: "2", Status: C},
			"x:pending x:completed", tasks("1", "x", "2", "x"), ""},
		{"delete removes and archives the item", []todolist.Todo{item("a", P), item("b", I)}, tasks("1", "a", "2", "b"), TaskOp{ID: "2", Delete: true},
			"a:pending", tasks("1", "a"), "b:in_progress"},
		{"delete keeps the person's item", []todolist.Todo{mine}, tasks("1", "mine"), TaskOp{ID: "1", Delete: true},
			"mine:pending", nil, ""},
	}
	show := func(todos []todolist.Todo) string {
		var out []string
		for _, td := range todos {
			out = append(out, td.Content+":"+string(td.Status))
		}
		return strings.Join(out, " ")
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ct := ClaudeTasks{Session: "s", Tasks: c.tasks}
			before := todolist.CloneTodos(c.todos)
			out, archived, err := ct.Apply(c.todos, c.op)
			if err != nil {
				t.Fatal(err)
			}
			if got := show(out); got != c.want {
				t.Errorf("list %q, want %q", got, c.want)
			}
			if !reflect.DeepEqual(ct.Tasks, c.wantTasks) && len(ct.Tasks)+len(c.wantTasks) > 0 {
				t.Errorf("tasks %v, want %v", ct.Tasks, c.wantTasks)
			}
			if got := show(archived); got != c.archived {
				t.Errorf("archived %q, want %q", got, c.archived)
			}
			if !reflect.DeepEqual(before, c.todos) {
				t.Error("the input list changed")
			}
			if err := todolist.Validate(out); err != nil {
				t.Error(err)
			}
		})
	}
	// Deleting the task of an item that carries a subtask the person
	// added since the agent's last read keeps the item (agent.View.Stays);
	// once the agent has read it, the delete removes it.
	withSub := []todolist.Todo{{Content: "a", Status: P, Rev: 0, Subtasks: []todolist.Subtask{{Content: "person's", Status: P, Origin: todolist.OriginPerson, Rev: 3}}}}
	for read, want := range map[int]string{2: "a:pending", 3: ""} {
		ct := ClaudeTasks{Tasks: tasks("1", "a"), View: agent.View{Read: read, Rev: 3}}
		out, archived, err := ct.Apply(withSub, TaskOp{ID: "1", Delete: true})
		if err != nil || show(out) != want || (want == "") != (len(archived) == 1) {
			t.Errorf("delete with the agent's read at %d: list %q, archived %v, %v; want %q", read, show(out), archived, err, want)
		}
	}
	// Completing an item ticks its subtasks; the activeForm is kept.
	ct := ClaudeTasks{Tasks: tasks("1", "p")}
	out, _, _ := ct.Apply([]todolist.Todo{{Content: "p", Status: I, Subtasks: []todolist.Subtask{{Content: "s", Status: P}}}}, TaskOp{ID: "1", Status: C, ActiveForm: "Doing p"})
	if out[0].Status != C || out[0].Subtasks[0].Status != C || out[0].ActiveForm != "Doing p" {
		t.Errorf("completed %+v", out[0])
	}
}

func TestClaudeTaskCreateFallbackID(t *testing.T) {
	// Without .tool_use_result the id is read from the result text.
	stream := `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"c1","name":"TaskCreate","input":{"subject":"S"}}]},"parent_tool_use_id":null}
{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"c1","content":"Task #4 created successfully: S"}]},"parent_tool_use_id":null}
`
	us := ofKind(collect(t, &ClaudeParser{}, stream), UpdateTask)
	if len(us) != 1 || us[0].Task.ID != "4" || !us[0].Task.Create {
		t.Errorf("updates %+v", us)
	}
}

func TestLineTypeAnyOrder(t *testing.T) {
	line := []byte(`{"session_id":"x","thread_id":"t9","type":"thread.started"}`)
	us := collect(t, &CodexParser{}, string(line)+"\n")
	if len(us) != 1 || us[0].Kind != UpdateSession || us[0].Text != "t9" {
		t.Errorf("updates %v", us)
	}
}

func TestToolCallLines(t *testing.T) {
	claude := `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"b","name":"Bash","input":{"description":"list","command":"ls -la\nwc -l"}}]},"parent_tool_use_id":null}`
	codex := `{"type":"item.started","item":{"id":"c","type":"command_execution","command":"bash -lc ls","aggregated_output":"","status":"in_progress"}}` + "\n" +
		`{"type":"item.completed","item":{"id":"c","type":"command_execution","command":"bash -lc ls","aggregated_output":"a\nb","status":"completed"}}` + "\n" +
		`{"type":"item.completed","item":{"id":"f","type":"file_change","changes":[{"path":"a.go","kind":"add"},{"path":"b.go","kind":"update"}]}}`
	gemini := `{"type":"tool_use","tool_name":"run_shell_command","tool_id":"x","parameters":{"command":"go test ./..."}}`
	cases := []struct {
		p      Parser
		stream string
		want   []string
	}{
		{&ClaudeParser{}, claude, []string{"Bash ls -la wc -l"}},
		{&CodexParser{}, codex, []string{"exec bash -lc ls", "edit a.go, b.go"}},
		{&GeminiParser{}, gemini, []string{"run_shell_command go test ./..."}},
	}
	for _, c := range cases {
		var got []string
		for _, u := range ofKind(collect(t, c.p, c.stream+"\n"), UpdateToolCall) {
			if u.Text != "" {
				got = append(got, u.Text)
			}
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%T: tool lines %q, want %q", c.p, got, c.want)
		}
	}
}

func TestLongTodoTextCut(t *testing.T) {
	long := strings.Repeat("é", todolist.MaxTextLen+5)
	line := `{"type":"tool_use","tool_name":"write_todos","tool_id":"w","parameters":{"todos":[{"description":"` + long + `","status":"pending"}]}}`
	us := collect(t, &GeminiParser{}, line+"\n")
	todos := ofKind(us, UpdateTodos)
	if err := todolist.Validate(todos[0].Todos); err != nil {
		t.Errorf("cut list invalid: %v", err)
	}
	if len(ofKind(us, UpdateNotice)) != 1 {
		t.Errorf("the cut was not reported")
	}
}

// TestPayloadWithoutListChangesNothing: a todo call whose list is missing
// or of another shape is reported, never read as an empty list, and is not
// a malformed line.
func TestPayloadWithoutListChangesNothing(t *testing.T) {
	cases := []struct {
		p    Parser
		line string
	}{
		{&ClaudeParser{}, `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"TodoWrite","input":{}}]},"parent_tool_use_id":null}`},
		{&ClaudeParser{}, `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"TodoWrite","input":{"todos":"all of them"}}]},"parent_tool_use_id":null}`},
		{&CodexParser{}, `{"type":"item.updated","item":{"id":"i","type":"todo_list","items":null}}`},
		{&GeminiParser{}, `{"type":"tool_use","tool_name":"write_todos","tool_id":"w","parameters":{"todos":null}}`},
		{&GeminiParser{}, `{"type":"tool_use","tool_name":"write_todos","tool_id":"w"}`},
	}
	for _, c := range cases {
		us := collect(t, c.p, c.line+"\n")
		notices := ofKind(us, UpdateNotice)
		if len(ofKind(us, UpdateTodos)) != 0 || len(notices) != 1 || strings.Contains(notices[0].Text, "malformed") || !strings.Contains(notices[0].Text, "list unchanged") {
			t.Errorf("%s: updates %v", c.line, us)
		}
	}
	// An explicit empty list is an empty list.
	us := collect(t, &GeminiParser{}, `{"type":"tool_use","tool_name":"write_todos","tool_id":"w","parameters":{"todos":[]}}`+"\n")
	if todos := ofKind(us, UpdateTodos); len(todos) != 1 || len(todos[0].Todos) != 0 {
		t.Errorf("empty list: %v", us)
	}
}

// TestJSONScanStrings: a line whose string ends where JSON says is read;
// one whose string does not end (an escaped closing quote) is malformed.
func TestJSONScanStrings(t *testing.T) {
	long := strings.Repeat("x", 70)
	cases := map[string]bool{
		`"abc"`: true, `"a\"b"`: true, `"a\\"`: true, `"a\\\"b"`: true,
		`"` + long + `\"` + long + `"`: true, `"` + long + `\\"`: true,
		`"1234567\"`: false, `"abc`: false, `"` + long + `\"`: false, `"\`: false,
	}
	for s, ok := range cases {
		line := `{"type":"assistant","message":{"content":[{"type":"text","text":` + s + `}]}}`
		malformed := false
		for _, u := range ofKind(collect(t, &ClaudeParser{}, line+"\n"), UpdateNotice) {
			malformed = malformed || strings.Contains(u.Text, "malformed")
		}
		if malformed == ok {
			t.Errorf("%s: malformed %v, want %v", s, malformed, !ok)
		}
	}
}

// TestToolCallLineCountsItems: the one line a todo tool call prints says
// "1 item", never "1 items", for every CLI's todo tool.
func TestToolCallLineCountsItems(t *testing.T) {
	tests := []struct {
		p    Parser
		line string
		want string
	}{
		{&ClaudeParser{}, `{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"t","name":"TodoWrite","input":{"todos":[{"content":"a","status":"pending","activeForm":"a"}]}}]},"parent_tool_use_id":null}`, "TodoWrite 1 item"},
		{&GeminiParser{}, `{"type":"tool_use","tool_name":"write_todos","tool_id":"w","parameters":{"todos":[{"description":"a","status":"pending"}]}}`, "write_todos 1 item"},
		{&CodexParser{}, `{"type":"item.updated","item":{"id":"i","type":"todo_list","items":[{"text":"a","completed":false},{"text":"b","completed":false}]}}`, "update_plan 2 items"},
	}
	for _, tc := range tests {
		calls := ofKind(collect(t, tc.p, tc.line+"\n"), UpdateToolCall)
		if len(calls) != 1 || calls[0].Text != tc.want {
			t.Errorf("%T: tool call lines %v, want one %q", tc.p, calls, tc.want)
		}
	}
}

// TestClaudeInitTools: the init line decides which todo tool the session
// has, whether it is deferred, and why there is none.
func TestClaudeInitTools(t *testing.T) {
	own := []string{"mcp__todosh__todo_write", "mcp__todosh__todo_read"}
	initLine := func(tools, servers string) string {
		return `{"type":"system","subtype":"init","session_id":"s","tools":[` + tools + `],"mcp_servers":[` + servers + `]}` + "\n"
	}
	tests := []struct {
		name, line string
		mcp        []string
		tool, load string // the UpdateTools, "" for none
		noTool     string // a piece of the UpdateNoTodoTool text, "" for none
	}{
		{"TodoWrite", initLine(`"Bash","TodoWrite"`, ``), nil, "TodoWrite", "", ""},
		{"tasks deferred", initLine(`"Bash","TaskCreate","TaskUpdate","ToolSearch"`, ``), nil, "TaskUpdate", "ToolSearch", ""},
		{"both: TodoWrite wins", initLine(`"TodoWrite","TaskCreate","TaskUpdate"`, ``), nil, "TodoWrite", "", ""},
		{"only todosh's MCP tools, deferred", initLine(`"Bash","ToolSearch","mcp__todosh__todo_write"`, `{"name":"todosh","status":"connected"}`), own, "mcp__todosh__todo_write", "ToolSearch", ""},
		{"none, MCP failed", initLine(`"Bash","ToolSearch"`, `{"name":"todosh","status":"failed"}`), own, "", "", "todosh's MCP server is failed"},
		{"none, MCP connected", initLine(`"Bash"`, `{"name":"todosh","status":"connected"}`), own, "", "", "neither TodoWrite nor the Task tools"},
		{"none, no MCP given", initLine(`"Bash","Agent"`, ``), nil, "", "", "neither TodoWrite nor the Task tools"},
		{"MCP tools of another server", initLine(`"mcp__other__todo_write"`, ``), own, "", "", "todosh's MCP server is missing"},
	}
	for _, tt := range tests {
		us := collect(t, &ClaudeParser{MCPTools: tt.mcp}, tt.line)
		tools, none := ofKind(us, UpdateTools), ofKind(us, UpdateNoTodoTool)
		switch {
		case tt.tool != "" && (len(tools) != 1 || tools[0].Text != tt.tool || tools[0].Load != tt.load):
			t.Errorf("%s: tools %+v, want %q load %q", tt.name, tools, tt.tool, tt.load)
		case tt.tool == "" && len(tools) != 0:
			t.Errorf("%s: tools %+v, want none", tt.name, tools)
		case tt.noTool != "" && (len(none) != 1 || !strings.Contains(none[0].Text, tt.noTool)):
			t.Errorf("%s: no-tool %+v, want %q", tt.name, none, tt.noTool)
		case tt.noTool == "" && len(none) != 0:
			t.Errorf("%s: no-tool %+v, want none", tt.name, none)
		}
	}
}
