package todotools

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/todosh/todosh/todolist"
	"github.com/todosh/todosh/todoview"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/todostore"
)

var toolTestNow = time.Date(2026, 11, 21, 22, 33, 44, 0, time.UTC)

// toolTestTools returns Tools on a fresh store whose session holds todos
// (nil: no file at all), as the agent last read it.
func toolTestTools(t testing.TB, todos []todolist.Todo) *Tools {
	t.Helper()
	st := todostore.Open(t.TempDir())
	st.Now = func() time.Time { return toolTestNow }
	sess := agent.Session{Store: st, ID: "s1"}
	if todos != nil {
		if _, err := sess.Update(func(s *todostore.Session) error {
			s.Todos = todolist.CloneTodos(todos)
			s.MarkAgentRead()
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	return &Tools{Session: sess}
}

func toolTestLoad(t testing.TB, tools *Tools) *todostore.Session {
	t.Helper()
	s, err := tools.Session.Load()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// toolTestList is the list most tests start from:
//
//  1. ✓ Create project skeleton
//  2. ▸ Implement the parser (1/2): 2.1 [x] quoted fields, 2.2 [ ] CRLF endings
//  3. ○ Write unit tests
func toolTestList() []todolist.Todo {
	return []todolist.Todo{
		{Content: "Create project skeleton", Status: todolist.Completed, Evidence: "go build ok"},
		{Content: "Implement the parser", Status: todolist.InProgress, Subtasks: []todolist.Subtask{
			{Content: "quoted fields", Status: todolist.Completed, Evidence: "TestQuoted passes"},
			{Content: "CRLF endings", Status: todolist.Pending},
		}},
		{Content: "Write unit tests", Status: todolist.Pending},
	}
}

// toolTestSummary is a compact rendering of a list for comparisons:
// "content:status[evidence]{subtasks}".
func toolTestSummary(todos []todolist.Todo) string {
	var parts []string
	for _, t := range todos {
		s := t.Content + ":" + string(t.Status)
		if t.Evidence != "" {
			s += "[" + t.Evidence + "]"
		}
		if t.Origin != "" {
			s += "(" + t.Origin + ")"
		}
		if len(t.Subtasks) > 0 {
			var subs []string
			for _, st := range t.Subtasks {
				x := st.Content + ":" + string(st.Status)
				if st.Evidence != "" {
					x += "[" + st.Evidence + "]"
				}
				subs = append(subs, x)
			}
			s += "{" + strings.Join(subs, ", ") + "}"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " | ")
}

func TestToolErrors(t *testing.T) {
	big := strings.Repeat("x", todolist.MaxTextLen+1)
	many := make([]string, todolist.MaxTodos+1)
	for i := range many {
		many[i] = `{"content":"t","status":"pending"}`
	}
	tests := []struct {
		name     string
		tool     string
		args     string
		evidence bool
		want     string // substring of the error result
	}{
		{"unknown tool", "todo_delete", `{}`, false, `unknown tool "todo_delete"`},
		{"empty tool name", "", `{}`, false, `unknown tool ""`},
		{"write invalid json", Write, `{"todos":[`, false, "not valid JSON"},
		{"write not an object", Write, `[1,2]`, false, "must be a JSON object"},
		{"write trailing data", Write, `{"todos":[]} {}`, false, "data after the JSON object"},
		{"write missing todos", Write, `{}`, false, "missing todos"},
		{"write todos not array", Write, `{"todos":"a, b"}`, false, "argument todos must be an array, not string"},
		{"write status wrong type", Write, `{"todos":[{"content":"a","status":3}]}`, false, "argument todos.status must be a string, not number"},
		{"write unknown status", Write, `{"todos":[{"content":"a","status":"blocked"}]}`, false, `todo 1: unknown status "blocked"`},
		{"write empty content", Write, `{"todos":[{"content":"a","status":"pending"},{"content":"  ","status":"pending"}]}`, false, "todo 2 text is empty"},
		{"write oversized content", Write, `{"todos":[{"content":"` + big + `","status":"pending"}]}`, false, "over the limit of 1000"},
		{"write oversized evidence", Write, `{"todos":[{"content":"a","status":"completed","evidence":"` + big + `"}]}`, false, "todo 1 evidence is 1001 characters"},
		{"write too many todos", Write, `{"todos":[` + strings.Join(many, ",") + `]}`, false, "101 todos, over the limit of 100"},
		{"write subtask in_progress", Write, `{"todos":[{"content":"a","status":"pending","subtasks":[{"content":"s","status":"in_progress"}]}]}`, false, `subtask 1.1 has status "in_progress": subtasks are pending or completed`},
		{"write subtask empty", Write, `{"todos":[{"content":"a","status":"pending","subtasks":[{"content":"","status":"pending"}]}]}`, false, "subtask 1.1 text is empty"},
		{"write complete with open subtasks", Write, `{"todos":[{"content":"a","status":"completed","subtasks":[{"content":"s","status":"completed"},{"content":"t","status":"pending"}]}]}`, false, "todo 1 has open subtasks 1.2: tick them first"},
		{"write completed item losing its checklist", Write, `{"todos":[{"content":"Implement the parser","status":"completed"}]}`, false, "todo 1 has open subtasks 1.2: tick them first with todo_tick"},
		{"write id wrong type", Write, `{"todos":[{"id":true,"content":"a","status":"pending"}]}`, false, `id must be a string such as "2.1"`},
		{"write completed without evidence", Write, `{"todos":[{"content":"new","status":"completed"}]}`, true, "todo 1 is completed without evidence (evidence is required in this session)"},
		{"write subtask completed without evidence", Write, `{"todos":[{"content":"a","status":"pending","subtasks":[{"content":"s","status":"completed"}]}]}`, true, "subtask 1.1 is completed without evidence"},
		{"read invalid json", Read, `{`, false, "not valid JSON"},
		{"tick missing id", Tick, `{}`, false, "missing id"},
		{"tick blank id", Tick, `{"id":" "}`, false, "missing id"},
		{"tick out of range", Tick, `{"id":"7.1"}`, false, `no todo with id "7.1" (the list has 3)`},
		{"tick no such subtask", Tick, `{"id":"2.9"}`, false, `no subtask with id "2.9" (todo 2 has 2 subtasks)`},
		{"tick item with subtasks", Tick, `{"id":"2"}`, false, "2 is an item, not a subtask: tick its subtasks 2.1-2.2"},
		{"tick item without subtasks", Tick, `{"id":"3"}`, false, "3 is an item without subtasks"},
		{"tick id object", Tick, `{"id":{"x":1}}`, false, "id must be a string"},
		{"tick without evidence", Tick, `{"id":"2.2"}`, true, "subtask 2.2 needs evidence to be ticked"},
		{"tick oversized evidence", Tick, `{"id":"2.2","evidence":"` + big + `"}`, false, "evidence is 1001 characters"},
		{"pause missing reason", Pause, `{}`, false, "missing reason"},
		{"pause empty reason", Pause, `{"reason":"  "}`, false, "reason is empty"},
		{"pause long reason", Pause, `{"reason":"` + strings.Repeat("é", MaxPauseReason+1) + `"}`, false, "reason is 501 characters, over the limit of 500"},
		{"pause reason wrong type", Pause, `{"reason":5}`, false, "argument reason must be a string, not number"},
		{"oversized arguments", Write, `{"todos":[],"pad":"` + strings.Repeat("x", MaxArgs) + `"}`, false, "over the limit of"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tools := toolTestTools(t, toolTestList())
			tools.RequireEvidence = tc.evidence
			before, _ := os.ReadFile(tools.Session.Store.Path("s1"))
			out := tools.Call(tc.tool, []byte(tc.args))
			if !out.IsError || !strings.Contains(out.Result, tc.want) {
				t.Fatalf("result %q (error %v), want an error containing %q", out.Result, out.IsError, tc.want)
			}
			if strings.Contains(out.Result, "\n") {
				t.Errorf("error result is not one line: %q", out.Result)
			}
			if out.Changed || out.Paused || out.Todos != nil {
				t.Errorf("error outcome carries state: %+v", out)
			}
			after, _ := os.ReadFile(tools.Session.Store.Path("s1"))
			if string(before) != string(after) {
				t.Errorf("the session file changed on error")
			}
		})
	}
}

func TestToolWrite(t *testing.T) {
	person := toolTestList()
	person = append(person, todolist.Todo{Content: "Ask about licence", Status: todolist.Pending, Origin: todolist.OriginPerson})
	tests := []struct {
		name     string
		start    []todolist.Todo
		args     string
		evidence bool
		want     string   // toolTestSummary of the list after
		result   []string // substrings of the result
		changed  bool
		archived string // toolTestSummary of the newest archive entry, "" for none
	}{
		{
			name:    "plan on an empty session",
			args:    `{"todos":[{"content":"A","status":"in_progress","activeForm":"Doing A"},{"content":"B","status":"pending","subtasks":[{"content":"b1","status":"pending"},{"content":"b2","status":"pending"}]}]}`,
			want:    "A:in_progress | B:pending{b1:pending, b2:pending}",
			result:  []string{"Saved the list: 2 items, 0 done, 2 open.", "Todo 0/2 done", `2.1 [ ] "b1"`},
			changed: true,
		},
		{
			name:    "statuses are lenient and empty means pending",
			args:    `{"todos":[{"content":"A","status":"done"},{"content":"B","status":"in-progress"},{"content":"C"}]}`,
			want:    "A:completed | B:in_progress | C:pending",
			changed: true,
		},
		{
			name:    "update statuses keeps evidence of finished items",
			start:   toolTestList(),
			args:    `{"todos":[{"content":"Create project skeleton","status":"completed"},{"content":"Implement the parser","status":"in_progress","subtasks":[{"content":"quoted fields","status":"completed"},{"content":"CRLF endings","status":"completed","evidence":"TestCRLF ok"}]},{"id":"3","content":"Write unit tests","status":"in_progress"}]}`,
			want:    "Create project skeleton:completed[go build ok] | Implement the parser:completed{quoted fields:completed[TestQuoted passes], CRLF endings:completed[TestCRLF ok]} | Write unit tests:in_progress",
			result:  []string{"Saved the list: 3 items, 2 done, 1 open."},
			changed: true,
		},
		{
			name:     "dropped open items are reported and archived",
			start:    toolTestList(),
			args:     `{"todos":[{"content":"Create project skeleton","status":"completed"},{"content":"Something new","status":"pending"}]}`,
			want:     "Create project skeleton:completed[go build ok] | Something new:pending",
			result:   []string{"left out 2 open item(s), now removed and archived (was 2, 3, listed below)", "mark it cancelled", "Archived from your list:\n  was 2: \"Implement the parser\"\n  was 3: \"Write unit tests\"\n"},
			changed:  true,
			archived: "Implement the parser:in_progress{quoted fields:completed[TestQuoted passes], CRLF endings:pending} | Write unit tests:pending",
		},
		{
			name:     "dropped finished items are archived without alarm",
			start:    toolTestList(),
			args:     `{"todos":[{"content":"Implement the parser","status":"in_progress","subtasks":[{"content":"quoted fields","status":"completed"},{"content":"CRLF endings","status":"pending"}]},{"content":"Write unit tests","status":"pending"}]}`,
			want:     "Implement the parser:in_progress{quoted fields:completed[TestQuoted passes], CRLF endings:pending} | Write unit tests:pending",
			result:   []string{"1 finished item(s) you left out were archived"},
			changed:  true,
			archived: "Create project skeleton:completed[go build ok]",
		},
		{
			name:    "items the person added are kept",
			start:   person,
			args:    `{"todos":[]}`,
			want:    "Ask about licence:pending(person)",
			result:  []string{"Kept as the person left them", "  1 (t6) \"Ask about licence\": left out by your list, kept\n", "left out 2 open item(s)"},
			changed: true,
			archived: "Create project skeleton:completed[go build ok] | Implement the parser:in_progress{quoted fields:completed[TestQuoted passes], CRLF endings:pending} | " +
				"Write unit tests:pending",
		},
		{
			name:    "a person's item may be cancelled and keeps its origin",
			start:   person,
			args:    `{"todos":[{"content":" Create project skeleton ","status":"completed"},{"content":"Implement the parser","status":"pending","subtasks":[{"content":"quoted fields","status":"completed"},{"content":"CRLF endings","status":"pending"}]},{"content":"Write unit tests","status":"pending"},{"content":"Ask about licence","status":"cancelled"}]}`,
			want:    " Create project skeleton :completed[go build ok] | Implement the parser:in_progress{quoted fields:completed[TestQuoted passes], CRLF endings:pending} | Write unit tests:pending | Ask about licence:cancelled(person)",
			changed: true,
		},
		{
			name:   "an identical list is not a change",
			start:  toolTestList(),
			args:   `{"todos":[{"content":"Create project skeleton","status":"completed"},{"content":"Implement the parser","status":"in_progress","subtasks":[{"content":"quoted fields","status":"completed"},{"content":"CRLF endings","status":"pending"}]},{"content":"Write unit tests","status":"pending"}]}`,
			want:   toolTestSummary(mustNormalize(toolTestList())),
			result: []string{"The list is unchanged."},
		},
		{
			name:     "evidence required and given",
			start:    toolTestList(),
			evidence: true,
			args:     `{"todos":[{"content":"Create project skeleton","status":"completed"},{"content":"Implement the parser","status":"pending","subtasks":[{"content":"quoted fields","status":"completed"},{"content":"CRLF endings","status":"completed","evidence":"ran go test"}]},{"content":"Write unit tests","status":"completed","evidence":"12 tests pass"}]}`,
			want:     "Create project skeleton:completed[go build ok] | Implement the parser:completed{quoted fields:completed[TestQuoted passes], CRLF endings:completed[ran go test]} | Write unit tests:completed[12 tests pass]",
			changed:  true,
		},
		{
			name:     "duplicates pair in order",
			start:    []todolist.Todo{{Content: "x", Status: todolist.Completed, Evidence: "first"}, {Content: "x", Status: todolist.Completed, Evidence: "second"}},
			args:     `{"todos":[{"id":"2","content":"x","status":"completed"}]}`,
			want:     "x:completed[first]",
			result:   []string{"1 finished item(s)"},
			changed:  true,
			archived: "x:completed[second]",
		},
		{
			name:    "a person's item keeps its place",
			start:   []todolist.Todo{{Content: "A", Status: todolist.Pending}, {Content: "P", Status: todolist.Pending, Origin: todolist.OriginPerson}, {Content: "B", Status: todolist.Pending}},
			args:    `{"todos":[{"content":"A","status":"completed"},{"content":"B","status":"in_progress"}]}`,
			want:    "A:completed | P:pending(person) | B:in_progress",
			result:  []string{"  2 (t2) \"P\": left out by your list, kept\n"},
			changed: true,
		},
		{
			name:     "finished work re-sent needs no new evidence",
			start:    []todolist.Todo{{Content: "done by person", Status: todolist.Completed, Origin: todolist.OriginPerson}, {Content: "P", Status: todolist.Pending, Subtasks: []todolist.Subtask{{Content: "s", Status: todolist.Completed}}}},
			evidence: true,
			args:     `{"todos":[{"content":"done by person","status":"completed"},{"content":"P","status":"pending","subtasks":[{"content":"s","status":"completed"}]}]}`,
			want:     "done by person:completed(person) | P:completed{s:completed}",
			result:   []string{"The list is unchanged."},
		},
		{
			name:    "an item sent without subtasks keeps its checklist",
			start:   toolTestList(),
			args:    `{"todos":[{"content":"Create project skeleton","status":"completed"},{"content":"Implement the parser","status":"in_progress"},{"content":"Write unit tests","status":"in_progress"}]}`,
			want:    "Create project skeleton:completed[go build ok] | Implement the parser:in_progress{quoted fields:completed[TestQuoted passes], CRLF endings:pending} | Write unit tests:in_progress",
			changed: true,
		},
		{
			name:    "numeric ids are accepted",
			args:    `{"todos":[{"id":1,"content":"a","status":"pending","subtasks":[{"id":1.1,"content":"s","status":"pending"}]}]}`,
			want:    "a:pending{s:pending}",
			changed: true,
		},
		{
			name:    "unknown fields are ignored",
			args:    `{"todos":[{"content":"a","status":"pending","priority":"high"}],"note":1}`,
			want:    "a:pending",
			changed: true,
		},
		{
			name: "a person's subtask stays when the model rewrites the checklist",
			start: []todolist.Todo{{Content: "P", Status: todolist.Pending, Subtasks: []todolist.Subtask{
				{Content: "a", Status: todolist.Pending}, {Content: "mine", Status: todolist.Pending, Origin: todolist.OriginPerson}, {Content: "b", Status: todolist.Pending}}}},
			args:     `{"todos":[{"content":"P","status":"pending","subtasks":[{"content":"a","status":"completed"},{"content":"c","status":"pending"}]}]}`,
			want:     "P:in_progress{a:completed, mine:pending, c:pending}",
			result:   []string{"  1.2 (s3) \"mine\": left out by your list, kept\n", "left out 1 subtask(s) of items it kept, now removed and archived (was 1.3, listed below)", "  was 1.3: \"b\"\n"},
			changed:  true,
			archived: "P:pending{b:pending}",
		},
		{
			name:    "an id with new content renames the item",
			start:   person,
			args:    `{"todos":[{"id":"1","content":"Create the project skeleton","status":"completed"},{"content":"Implement the parser","status":"in_progress"},{"content":"Write unit tests","status":"pending"},{"id":4,"content":"Ask about the licence","status":"in_progress"}]}`,
			want:    "Create the project skeleton:completed[go build ok] | Implement the parser:in_progress{quoted fields:completed[TestQuoted passes], CRLF endings:pending} | Write unit tests:pending | Ask about the licence:in_progress(person)",
			result:  []string{"Saved the list: 4 items, 1 done, 3 open."},
			changed: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tools := toolTestTools(t, tc.start)
			tools.RequireEvidence = tc.evidence
			out := tools.Call(Write, []byte(tc.args))
			if out.IsError {
				t.Fatalf("error: %s", out.Result)
			}
			s := toolTestLoad(t, tools)
			if got := toolTestSummary(s.Todos); got != tc.want {
				t.Errorf("list\n got %s\nwant %s", got, tc.want)
			}
			if got := toolTestSummary(out.Todos); got != tc.want {
				t.Errorf("outcome list\n got %s\nwant %s", got, tc.want)
			}
			if out.Changed != tc.changed {
				t.Errorf("changed = %v, want %v", out.Changed, tc.changed)
			}
			for _, w := range tc.result {
				if !strings.Contains(out.Result, w) {
					t.Errorf("result lacks %q:\n%s", w, out.Result)
				}
			}
			if !strings.HasSuffix(out.Result, todoview.FormatListForModel(s.Todos)) {
				t.Errorf("result does not end with the list:\n%s", out.Result)
			}
			var got string
			if last, _ := tools.Session.Store.LastChange(tools.Session.ID); len(last.Dropped) > 0 && out.Changed {
				if !strings.Contains(last.What, agent.DroppedReason) {
					t.Errorf("last change %q", last.What)
				}
				got = toolTestSummary(last.Dropped)
			}
			if got != tc.archived {
				t.Errorf("archive\n got %s\nwant %s", got, tc.archived)
			}
		})
	}
}

// TestToolResultsNameNoText: the sentences of tool results name positions
// only; todo text appears only in the list lines under them (indented) and
// in the list at the end.
func TestToolResultsNameNoText(t *testing.T) {
	start := []todolist.Todo{
		{Content: "alpha", Status: todolist.Completed},
		{Content: "bravo", Status: todolist.InProgress, Subtasks: []todolist.Subtask{
			{Content: "charlie", Status: todolist.Completed}, {Content: "delta", Status: todolist.Pending}, {Content: "echo", Status: todolist.Pending, Origin: todolist.OriginPerson}}},
		{Content: "foxtrot", Status: todolist.Pending},
		{Content: "golf", Status: todolist.Pending, Origin: todolist.OriginPerson},
		{Content: "hotel", Status: todolist.Completed},
	}
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india"}
	calls := []struct{ name, args string }{
		{Write, `{"todos":[{"content":"bravo","status":"in_progress","subtasks":[{"content":"charlie","status":"completed"}]},{"content":"india","status":"pending"}]}`},
		{Tick, `{"id":"2.2"}`},
		{Tick, `{"id":"2.1"}`},
	}
	for _, c := range calls {
		tools := toolTestTools(t, start)
		out := tools.Call(c.name, []byte(c.args))
		if out.IsError {
			t.Fatalf("%s %s: %s", c.name, c.args, out.Result)
		}
		head := strings.TrimSuffix(out.Result, todoview.FormatListForModel(out.Todos))
		for _, line := range strings.Split(head, "\n") {
			if strings.HasPrefix(line, "  ") {
				continue // a list line: data
			}
			for _, w := range words {
				if strings.Contains(line, w) {
					t.Errorf("%s %s: todo text %q in a sentence: %q", c.name, c.args, w, line)
				}
			}
		}
	}
	// Ticking the last subtask names the next item by position.
	tools := toolTestTools(t, []todolist.Todo{{Content: "alpha", Status: todolist.Pending, Subtasks: []todolist.Subtask{{Content: "bravo", Status: todolist.Pending}}}, {Content: "charlie", Status: todolist.Pending}})
	out := tools.Call(Tick, []byte(`{"id":"1.1"}`))
	for _, line := range strings.Split(out.Result, "\n") {
		if !strings.HasPrefix(line, "  ") && (strings.Contains(line, "alpha") || strings.Contains(line, "bravo") || strings.Contains(line, "charlie")) {
			t.Errorf("todo text in a sentence: %q", line)
		}
	}
}

func mustNormalize(todos []todolist.Todo) []todolist.Todo {
	todolist.Normalize(todos)
	return todos
}

func TestToolTick(t *testing.T) {
	three := []todolist.Todo{
		{Content: "Parser", Status: todolist.Pending, Subtasks: []todolist.Subtask{
			{Content: "quoted", Status: todolist.Pending}, {Content: "crlf", Status: todolist.Pending}}},
		{Content: "Tests", Status: todolist.Pending},
	}
	tests := []struct {
		name     string
		start    []todolist.Todo
		args     string
		evidence bool
		want     string
		result   []string
	}{
		{
			name:   "tick the first subtask",
			start:  three,
			args:   `{"id":"1.1","evidence":"TestQuoted ok"}`,
			want:   "Parser:in_progress{quoted:completed[TestQuoted ok], crlf:pending} | Tests:pending",
			result: []string{"Ticked 1.1 (s2) of item 1 (t1).\n  1 \"Parser\"\n  1.1 [x] \"quoted\"\nRemaining in 1:\n  1.2 (s3) [ ] \"crlf\"\nContinue working through the remaining subtasks.\n"},
		},
		{
			name:   "tick the last subtask completes the item",
			start:  toolTestList(),
			args:   `{"id":2.2}`,
			want:   "Create project skeleton:completed[go build ok] | Implement the parser:completed{quoted fields:completed[TestQuoted passes], CRLF endings:completed} | Write unit tests:pending",
			result: []string{"Ticked 2.2 (s4) of item 2 (t2).\n  2 \"Implement the parser\"\n  2.2 [x] \"CRLF endings\"\nAll subtasks of 2 are done: 2 is now completed.\nContinue with the next open item, 3 (t5):\n  3 \"Write unit tests\"\n"},
		},
		{
			name:   "untick a ticked subtask",
			start:  toolTestList(),
			args:   `{"id":"2.1","evidence":"ignored"}`,
			want:   "Create project skeleton:completed[go build ok] | Implement the parser:in_progress{quoted fields:pending, CRLF endings:pending} | Write unit tests:pending",
			result: []string{"Unticked 2.1 (s3) of item 2 (t2): it was already ticked", `  2.1 [ ] "quoted fields"`, `  2.2 (s4) [ ] "CRLF endings"`},
		},
		{
			name:     "the last open work done",
			start:    []todolist.Todo{{Content: "P", Status: todolist.Pending, Subtasks: []todolist.Subtask{{Content: "s", Status: todolist.Pending}}}},
			args:     `{"id":" 1.1 ","evidence":"ran it"}`,
			evidence: true,
			want:     "P:completed{s:completed[ran it]}",
			result:   []string{"Every item on the list is done."},
		},
		{
			name:   "ticking under a cancelled item keeps it cancelled",
			start:  []todolist.Todo{{Content: "P", Status: todolist.Cancelled, Subtasks: []todolist.Subtask{{Content: "s", Status: todolist.Pending}}}},
			args:   `{"id":"1.1"}`,
			want:   "P:cancelled{s:completed}",
			result: []string{"is now cancelled"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tools := toolTestTools(t, tc.start)
			tools.RequireEvidence = tc.evidence
			out := tools.Call(Tick, []byte(tc.args))
			if out.IsError || !out.Changed {
				t.Fatalf("outcome %+v", out)
			}
			if got := toolTestSummary(toolTestLoad(t, tools).Todos); got != tc.want {
				t.Errorf("list\n got %s\nwant %s", got, tc.want)
			}
			for _, w := range tc.result {
				if !strings.Contains(out.Result, w) {
					t.Errorf("result lacks %q:\n%s", w, out.Result)
				}
			}
		})
	}
}

func TestToolReadAndPause(t *testing.T) {
	tools := toolTestTools(t, toolTestList())
	for _, args := range []string{``, ` `, `{}`, `{"verbose":true}`} {
		out := tools.Call(Read, []byte(args))
		want := "Stable ids (use them in todo_tick and todo_write; positions change when items move): 1 t1, 2 t2, 2.1 s3, 2.2 s4, 3 t5\n" +
			todoview.FormatListForModel(toolTestLoad(t, tools).Todos)
		if out.IsError || out.Changed || out.Result != want {
			t.Fatalf("todo_read(%q) = %+v, want %q", args, out, want)
		}
	}
	empty := toolTestTools(t, nil)
	if out := empty.Call(Read, nil); out.Result != "Todo list is empty\n" {
		t.Errorf("empty todo_read = %q", out.Result)
	}

	reason := strings.Repeat("é", MaxPauseReason-1) + "?"
	out := tools.Call(Pause, []byte(`{"reason":" `+reason+` "}`))
	if out.IsError || !out.Paused || out.PauseReason != reason || out.Changed {
		t.Fatalf("pause outcome %+v", out)
	}
	if !strings.Contains(out.Result, "will not continue you until the person replies") {
		t.Errorf("pause result %q", out.Result)
	}
	s := toolTestLoad(t, tools)
	if !s.Paused || s.PauseReason != reason || toolTestSummary(s.Todos) != toolTestSummary(mustNormalize(toolTestList())) {
		t.Errorf("session after pause: paused %v reason %q list %s", s.Paused, s.PauseReason, toolTestSummary(s.Todos))
	}
}

func TestToolSpecs(t *testing.T) {
	for _, evidence := range []bool{false, true} {
		tools := &Tools{RequireEvidence: evidence}
		specs := tools.Specs()
		var names []string
		for _, s := range specs {
			names = append(names, s.Name)
			var schema map[string]any
			if err := json.Unmarshal(s.Parameters, &schema); err != nil || schema["type"] != "object" {
				t.Errorf("%s: schema %s: %v", s.Name, s.Parameters, err)
			}
			if s.Description == "" {
				t.Errorf("%s has no description", s.Name)
			}
		}
		if got := strings.Join(names, ","); got != "todo_write,todo_read,todo_tick,todo_pause" {
			t.Errorf("tools %s", got)
		}
		if got := strings.Contains(string(specs[0].Parameters), "Required when completed"); got != evidence {
			t.Errorf("evidence %v: schema says required = %v", evidence, got)
		}
	}
}

func TestDescribeToolCall(t *testing.T) {
	tests := []struct{ name, args, want string }{
		{Write, `{"todos":[{},{},{}]}`, "todo_write 3 items"},
		{Tick, `{"id":"2.1"}`, "todo_tick 2.1"},
		{Tick, `{"id":2.1}`, "todo_tick 2.1"},
		{Pause, `{"reason":"which DB?\n\u001b[2J"}`, `todo_pause "which DB? [2J"`},
		{Read, ``, "todo_read"},
		{Write, `{bad`, "todo_write"},
		{"evil\x1b[31m", `{}`, "evil [31m"},
		{strings.Repeat("n", 200), `{}`, strings.Repeat("n", 99) + "…"},
	}
	for _, tc := range tests {
		if got := DescribeCall(tc.name, []byte(tc.args)); got != tc.want {
			t.Errorf("DescribeCall(%q, %q) = %q, want %q", tc.name, tc.args, got, tc.want)
		}
	}
}

// FuzzToolCall sends arbitrary calls to the tools on a store holding a list:
// Call never panics, an error result leaves the file byte for byte as it
// was, and a success leaves a list that passes todolist.Validate.
func FuzzToolCall(f *testing.F) {
	f.Add(Write, []byte(`{"todos":[{"content":"a","status":"completed","subtasks":[{"content":"s","status":"pending"}]}]}`))
	f.Add(Write, []byte(`{"todos":[]}`))
	f.Add(Tick, []byte(`{"id":"2.2","evidence":"x"}`))
	f.Add(Pause, []byte(`{"reason":"?"}`))
	f.Add(Read, []byte(``))
	f.Add("todo_x", []byte(`{`))
	tools := toolTestTools(f, []todolist.Todo{})
	path := tools.Session.Store.Path("s1")
	os.MkdirAll(tools.Session.Store.Dir, 0o755)
	f.Fuzz(func(t *testing.T, name string, args []byte) {
		seed := &todostore.Session{Version: 1, Session: "s1", Todos: mustNormalize(toolTestList())}
		seed.Todos = append(seed.Todos, todolist.Todo{ID: "4", Content: "mine", Status: todolist.Pending, Origin: todolist.OriginPerson})
		data, err := todostore.Encode(seed)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		tools.RequireEvidence = len(args)%2 == 0
		out := tools.Call(name, args)
		after, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if out.IsError {
			if string(after) != string(data) {
				t.Fatalf("error %q changed the file", out.Result)
			}
			return
		}
		s, err := todostore.Decode(after)
		if err != nil {
			t.Fatal(err)
		}
		if err := todolist.Validate(s.Todos); err != nil {
			t.Fatal(err)
		}
		// The person's item stays, though the model may rename it by id.
		persons := 0
		for _, td := range s.Todos {
			if td.Origin == todolist.OriginPerson {
				persons++
			}
		}
		if persons != 1 {
			t.Fatalf("the person's item was lost: %s", todoview.FormatListForModel(s.Todos))
		}
	})
}

// personEdit changes the session as the person does (/todo move, edit,
// done, add): by ByYou, outside the agent's tools.
func personEdit(t *testing.T, tools *Tools, fn func(s *todostore.Session)) {
	t.Helper()
	if _, err := tools.Session.Store.Update(tools.Session.ID, func(s *todostore.Session) error { fn(s); return nil }); err != nil {
		t.Fatal(err)
	}
}

// TestToolTickAfterMove: after the person moves items, a tick by position
// names the subtask at that position in the list the agent last read,
// wherever it is now (never another item's subtask), and the reply names
// its text and its item's; once that subtask left the list, the position
// is refused and nothing changes. A tick by stable id lands on the
// subtask wherever it is.
func TestToolTickAfterMove(t *testing.T) {
	tools := toolTestTools(t, []todolist.Todo{
		{Content: "Parser", Status: todolist.Pending, Subtasks: []todolist.Subtask{{Content: "quoted", Status: todolist.Pending}}},
		{Content: "Docs", Status: todolist.Pending, Subtasks: []todolist.Subtask{{Content: "usage", Status: todolist.Pending}}},
	})
	read := tools.Call(Read, nil)
	if !strings.Contains(read.Result, "1 t1, 1.1 s2, 2 t3, 2.1 s4") {
		t.Fatalf("todo_read shows no stable ids:\n%s", read.Result)
	}
	personEdit(t, tools, func(s *todostore.Session) { s.Todos[0], s.Todos[1] = s.Todos[1], s.Todos[0] }) // /todo move 2 1

	out := tools.Call(Tick, []byte(`{"id":"1.1"}`))
	if out.IsError {
		t.Fatalf("tick by the position the agent read: %+v", out)
	}
	if got := toolTestSummary(toolTestLoad(t, tools).Todos); got != "Docs:pending{usage:pending} | Parser:completed{quoted:completed}" {
		t.Errorf("tick 1.1 of the list read landed elsewhere: %s", got)
	}
	if !strings.Contains(out.Result, "Ticked 2.1 (s2) of item 2 (t1).\n  2 \"Parser\"\n  2.1 [x] \"quoted\"\n") {
		t.Errorf("the tick's reply does not name what it ticked:\n%s", out.Result)
	}
	// The subtask the position named is gone: refused, nothing changed.
	personEdit(t, tools, func(s *todostore.Session) { s.Todos = s.Todos[:1] }) // /todo delete 2
	if out := tools.Call(Tick, []byte(`{"id":"1.1"}`)); !out.IsError || !strings.Contains(out.Result, "no longer on the list") || !strings.Contains(out.Result, "unchanged") {
		t.Errorf("a position whose subtask was deleted: %s", out.Result)
	}
	if got := toolTestSummary(toolTestLoad(t, tools).Todos); got != "Docs:pending{usage:pending}" {
		t.Fatalf("a refused tick changed the list: %s", got)
	}
	if out := tools.Call(Tick, []byte(`{"id":"s4"}`)); out.IsError || !strings.Contains(out.Result, `1.1 [x] "usage"`) {
		t.Errorf("tick s4: %s", out.Result)
	}
	tools.Call(Read, nil)
	if out := tools.Call(Tick, []byte(`{"id":"1.1"}`)); out.IsError || !strings.Contains(out.Result, `1.1 [ ] "usage"`) {
		t.Errorf("tick 1.1 after a read (unticks it): %s", out.Result)
	}
	if out := tools.Call(Tick, []byte(`{"id":"s9"}`)); !out.IsError || !strings.Contains(out.Result, `no item or subtask has the id "s9"`) {
		t.Errorf("tick of an unknown id: %s", out.Result)
	}
}

// TestToolWriteNeverUndoesThePerson: an agent's todo_write restating the
// list it last read does not undo what the person did since: a rename, a
// completion and a subtask the person added stay, a reused position is
// refused, and the reply names what was kept.
func TestToolWriteNeverUndoesThePerson(t *testing.T) {
	tools := toolTestTools(t, []todolist.Todo{
		{Content: "Write the parser", Status: todolist.InProgress, Subtasks: []todolist.Subtask{{Content: "quoted", Status: todolist.Pending}}},
		{Content: "Write tests", Status: todolist.Pending},
		{Content: "Old step", Status: todolist.Pending},
	})
	older := `{"todos":[{"id":"1","content":"Write the parser","status":"in_progress","subtasks":[{"content":"quoted","status":"pending"}]},` +
		`{"id":"2","content":"Write tests","status":"pending"}]}`
	personEdit(t, tools, func(s *todostore.Session) {
		s.Todos[0].Content = "Write the CSV parser"                                                                    // /todo edit 1
		s.Todos[0].Subtasks = append(s.Todos[0].Subtasks, todolist.Subtask{Content: "CRLF", Status: todolist.Pending}) // a subtask added
		s.Todos[1].Status = todolist.Completed                                                                         // /todo done 2
	})
	out := tools.Call(Write, []byte(older))
	if !out.IsError || !strings.Contains(out.Result, "changed since your last read") {
		t.Fatalf("a write by stale positions: %+v", out)
	}
	// The same older list without positions: merged, nothing undone.
	out = tools.Call(Write, []byte(strings.ReplaceAll(strings.ReplaceAll(older, `"id":"1",`, ""), `"id":"2",`, "")))
	if out.IsError {
		t.Fatal(out.Result)
	}
	got := toolTestSummary(toolTestLoad(t, tools).Todos)
	want := "Write the CSV parser:in_progress{quoted:pending, CRLF:pending} | Write the parser:in_progress{quoted:pending} | Write tests:completed"
	if got != want {
		t.Errorf("list\n got %s\nwant %s", got, want)
	}
	for _, w := range []string{
		`  1 (t1) "Write the CSV parser": left out by your list, kept`,
		`  3 (t3) "Write tests": changed by the person since your last read, your version not applied`,
		`was 3: "Old step"`, // the agent saw it and left it out: archived
	} {
		if !strings.Contains(out.Result, w) {
			t.Errorf("reply lacks %q:\n%s", w, out.Result)
		}
	}
	// Now that it has seen the list, the agent's changes apply, by id.
	out = tools.Call(Write, []byte(`{"todos":[{"id":"t1","content":"Write the CSV parser","status":"in_progress","subtasks":[{"id":"s2","content":"quoted","status":"completed"},{"content":"CRLF","status":"pending"}]},{"id":"t3","content":"Write tests","status":"in_progress"}]}`))
	if out.IsError {
		t.Fatal(out.Result)
	}
	if got := toolTestSummary(toolTestLoad(t, tools).Todos); got != "Write the CSV parser:in_progress{quoted:completed, CRLF:pending} | Write tests:in_progress" {
		t.Errorf("after a read: %s", got)
	}
}

// TestToolTickAfterAnotherAgentsRead: the session's agentRead is shared
// by every agent of the session; another one (an agent's hooks) that
// reorders the list and is shown it must not make this agent's positions
// name other subtasks: a position is refused then (this agent may have
// been shown the newer list too, or not), nothing changes, and after a
// todo_read positions name the list it showed.
func TestToolTickAfterAnotherAgentsRead(t *testing.T) {
	tools := toolTestTools(t, []todolist.Todo{
		{Content: "Parser", Status: todolist.Pending, Subtasks: []todolist.Subtask{{Content: "quoted", Status: todolist.Pending}, {Content: "CRLF", Status: todolist.Pending}}},
		{Content: "Docs", Status: todolist.Pending, Subtasks: []todolist.Subtask{{Content: "usage", Status: todolist.Pending}}},
	})
	tools.Call(Read, nil)
	// A hook's TodoWrite reorders the list, then its stop hook shows the
	// list to its agent: agentRead is the list's revision again.
	if _, _, err := tools.Session.Commit(todolist.ByAgent, func(s *todostore.Session) error {
		s.Todos[0], s.Todos[1] = s.Todos[1], s.Todos[0]
		s.Todos[1].Subtasks = []todolist.Subtask{s.Todos[1].Subtasks[1], s.Todos[1].Subtasks[0]}
		s.MarkAgentRead()
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	const after = "Docs:pending{usage:pending} | Parser:pending{CRLF:pending, quoted:pending}"
	if out := tools.Call(Tick, []byte(`{"id":"1.2"}`)); !out.IsError || !strings.Contains(out.Result, "changed since your last read") {
		t.Fatalf("tick 1.2 after another agent's read: %s", out.Result)
	}
	if got := toolTestSummary(toolTestLoad(t, tools).Todos); got != after {
		t.Errorf("a refused tick changed the list: %s", got)
	}
	tools.Call(Read, nil)
	if out := tools.Call(Tick, []byte(`{"id":"2.1"}`)); out.IsError {
		t.Fatalf("tick 2.1 after a read: %s", out.Result)
	}
	if got := toolTestSummary(toolTestLoad(t, tools).Todos); got != "Docs:pending{usage:pending} | Parser:in_progress{CRLF:completed, quoted:pending}" {
		t.Errorf("tick 2.1 of the list read (CRLF) landed elsewhere: %s", got)
	}
}

// TestUnknownToolNamesEveryTool: an unknown tool's error names every tool
// these offer, the board's with a board and not without.
func TestUnknownToolNamesEveryTool(t *testing.T) {
	without := (&Tools{}).Call("todo_frobnicate", []byte(`{}`))
	if !without.IsError || !strings.Contains(without.Result, "todo_write, todo_read, todo_tick and todo_pause") {
		t.Errorf("without a board: %q", without.Result)
	}
	with := (&Tools{Board: noBoard{}}).Call("todo_frobnicate", []byte(`{}`))
	for _, n := range Names() {
		if !strings.Contains(with.Result, n) {
			t.Errorf("with a board, %s not named: %q", n, with.Result)
		}
	}
}
