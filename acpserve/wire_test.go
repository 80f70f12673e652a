package acpserve

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/todosh/todosh/todolist"

	acp "github.com/coder/acp-go-sdk"

	"github.com/todosh/todosh/commands"
)

func TestPlanEntries(t *testing.T) {
	prio := func(p string) todolist.Extra { return todolist.Extra{"priority": json.RawMessage(p)} }
	for _, c := range []struct {
		name string
		todo todolist.Todo
		want acp.PlanEntry
	}{
		{"pending", todolist.Todo{Content: "a", Status: todolist.Pending}, acp.PlanEntry{Content: "a", Status: "pending", Priority: "medium"}},
		{"in progress", todolist.Todo{Content: "b", Status: todolist.InProgress}, acp.PlanEntry{Content: "b", Status: "in_progress", Priority: "medium"}},
		{"completed", todolist.Todo{Content: "c", Status: todolist.Completed}, acp.PlanEntry{Content: "c", Status: "completed", Priority: "medium"}},
		{"cancelled is a marked completed", todolist.Todo{Content: "d", Status: todolist.Cancelled}, acp.PlanEntry{Content: "(cancelled) d", Status: "completed", Priority: "medium"}},
		{"subtasks counted", todolist.Todo{Content: "e", Status: todolist.InProgress, Subtasks: []todolist.Subtask{{Content: "x", Status: todolist.Completed}, {Content: "y", Status: todolist.Pending}}},
			acp.PlanEntry{Content: "e (1/2 subtasks)", Status: "in_progress", Priority: "medium"}},
		{"known priority", todolist.Todo{Content: "f", Status: todolist.Pending, Extra: prio(`"High"`)}, acp.PlanEntry{Content: "f", Status: "pending", Priority: "high"}},
		{"unknown priority", todolist.Todo{Content: "g", Status: todolist.Pending, Extra: prio(`"urgent"`)}, acp.PlanEntry{Content: "g", Status: "pending", Priority: "medium"}},
		{"priority not a string", todolist.Todo{Content: "h", Status: todolist.Pending, Extra: prio(`3`)}, acp.PlanEntry{Content: "h", Status: "pending", Priority: "medium"}},
	} {
		got := PlanEntries([]todolist.Todo{c.todo})
		if len(got) != 1 || got[0].Content != c.want.Content || got[0].Status != c.want.Status || got[0].Priority != c.want.Priority {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
	if got := PlanEntries(nil); got == nil || len(got) != 0 {
		t.Errorf("empty list: %#v, want an empty plan (entries: [])", got)
	}
}

func TestMergeCommands(t *testing.T) {
	inner := []acp.AvailableCommand{{Name: "compact"}, {Name: "todo", Description: "the agent's own"}, {Name: "review"}}
	got := MergeCommands(inner, []string{"add", "show"})
	var names []string
	for _, c := range got {
		names = append(names, c.Name)
	}
	if !slices.Equal(names, []string{"todo", "compact", "review"}) {
		t.Errorf("names = %q, want todosh's todo first, the agent's own todo dropped", names)
	}
	if got[0].Input == nil || got[0].Input.Unstructured == nil || !strings.Contains(got[0].Input.Unstructured.Hint, "add, show") {
		t.Errorf("todo's input hint = %+v", got[0].Input)
	}
	if got := MergeCommands(nil, nil); len(got) != 1 {
		t.Errorf("no inner commands: %d commands, want todo alone", len(got))
	}
	subs := todoSubcommands(commands.NewRegistry().Complete)
	for _, want := range []string{"add", "done", "show", "set"} {
		if !slices.Contains(subs, want) {
			t.Errorf("subcommands %q lack %q", subs, want)
		}
	}
}

func TestIsTodoCommand(t *testing.T) {
	for text, want := range map[string]bool{
		"/todo":               true,
		"  /todo show ":       true,
		`/todo add "x"`:       true,
		"/todo\tshow":         true,
		"/todos":              false,
		"/todoadd x":          false,
		"/help":               false,
		"please /todo show":   false,
		"/todo add a\nand b":  false,
		"":                    false,
		"/compact the thread": false,
	} {
		if got := IsTodoCommand(text); got != want {
			t.Errorf("IsTodoCommand(%q) = %v, want %v", text, got, want)
		}
	}
}

func TestPromptText(t *testing.T) {
	blocks := []acp.ContentBlock{
		acp.TextBlock("look at "),
		acp.ResourceLinkBlock("main.go", "file:///src/main.go"),
		acp.TextBlock("and this:"),
		{Resource: &acp.ContentBlockResource{Resource: acp.EmbeddedResourceResource{TextResourceContents: &acp.TextResourceContents{Uri: "file:///src/a.md", Text: "has ``` inside\n"}}}},
		acp.ImageBlock("AAAA", "image/png"),
	}
	got := PromptText(blocks)
	for _, want := range []string{"look at \n[main.go](file:///src/main.go)\nand this:", "Contents of file:///src/a.md:\n````\nhas ``` inside\n````", "an image was left out"} {
		if !strings.Contains(got, want) {
			t.Errorf("PromptText lacks %q:\n%s", want, got)
		}
	}
	if got := PromptText([]acp.ContentBlock{acp.TextBlock("  /todo show  ")}); got != "/todo show" {
		t.Errorf("a plain prompt = %q", got)
	}
}

func TestCheckFrame(t *testing.T) {
	for _, c := range []struct {
		line string
		pass bool
		code int
		id   string // the reply's id as JSON
	}{
		{"", true, 0, ""},
		{"   ", true, 0, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, true, 0, ""},
		{`{"jsonrpc":"2.0","method":"session/cancel","params":{}}`, true, 0, ""},
		{`{"jsonrpc":"2.0","id":3,"result":{}}`, true, 0, ""},
		{`{"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"x"}}`, true, 0, ""},
		{"not json", false, codeParseError, "null"},
		{`{"id":1,`, false, codeParseError, "null"},
		{`[{"jsonrpc":"2.0","id":1,"method":"initialize"}]`, false, codeInvalidRequest, "null"},
		{`"just a string"`, false, codeInvalidRequest, "null"},
		{`{}`, false, codeInvalidRequest, "null"},
		{`{"jsonrpc":"2.0","id":4}`, false, codeInvalidRequest, "4"},
		{`{"jsonrpc":"2.0","id":"a","method":7}`, false, codeInvalidRequest, `"a"`},
		{`{"jsonrpc":"2.0","id":{"x":1},"method":""}`, false, codeInvalidRequest, "null"},
		{`{"jsonrpc":"1.0","id":5,"method":"initialize"}`, false, codeInvalidRequest, "5"},
		{`{"id":6,"method":"initialize"}`, false, codeInvalidRequest, "6"},
		{`{"jsonrpc":2,"id":7,"result":{}}`, false, codeInvalidRequest, "7"},
	} {
		pass, reply := CheckFrame([]byte(c.line))
		if pass != c.pass {
			t.Errorf("%s: pass %v, want %v", c.line, pass, c.pass)
			continue
		}
		if pass {
			if reply != nil {
				t.Errorf("%s: passed with a reply %s", c.line, reply)
			}
			continue
		}
		var r struct {
			ID    json.RawMessage `json:"id"`
			Error struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(reply, &r); err != nil || r.Error.Code != c.code || string(r.ID) != c.id || r.Error.Message == "" {
			t.Errorf("%s: reply %s, want code %d id %s", c.line, reply, c.code, c.id)
		}
	}
}

func TestFilterFramesLongLine(t *testing.T) {
	long := `{"jsonrpc":"2.0","id":1,"method":"x","params":"` + strings.Repeat("a", MaxMessage) + "\"}\n"
	in := strings.NewReader("not json\n" + long + `{"jsonrpc":"2.0","id":2,"method":"ok"}` + "\n")
	var replies strings.Builder
	r, start := filterFrames(in, &lockedWriter{w: &replies}, nil)
	start()
	var passed strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := r.Read(buf)
		passed.Write(buf[:n])
		if err != nil {
			break
		}
	}
	if passed.String() != `{"jsonrpc":"2.0","id":2,"method":"ok"}`+"\n" {
		t.Errorf("passed %q, want only the good message", passed.String()[:min(200, passed.Len())])
	}
	if got := replies.String(); strings.Count(got, "\n") != 2 || !strings.Contains(got, "-32700") || !strings.Contains(got, "over the limit") {
		t.Errorf("replies = %q", got)
	}
}
