package fakemodel

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
)

// family is one kind of todo tool a request can offer. families holds them
// in the order the scripted model prefers them: the agent's own tools
// first, todosh's MCP tools after, todosh's plain functions last.
type family struct {
	name string
	// mcp marks todosh's MCP tools, which Script.PreferMCP puts first.
	mcp bool
	// match returns the tools of this family that tools offers (every one
	// the family needs), or false.
	match func(tools []Tool) ([]Tool, bool)
	// create plans the list: Todos, the first in progress.
	create func(set []Tool) []ActionCall
	// createDone writes the list with every item completed (OneGo); nil
	// when the family cannot.
	createDone func(set []Tool) []ActionCall
	// complete marks item done (0-based) completed and starts the next.
	complete func(set []Tool, msgs []Msg, done int) []ActionCall
	// progress reads the family's earlier calls in msgs: whether the list
	// was created and how many items are completed.
	progress func(set []Tool, msgs []Msg) (created bool, done int)
	// remark puts the first item, finished, back in progress (the Remark
	// scenario); nil when the family cannot.
	remark func(set []Tool, msgs []Msg) []ActionCall
}

// activeForms are the present-continuous forms of Todos (Claude's activeForm).
var activeForms = []string{
	"Creating project skeleton for csvkit-lite",
	"Implementing CSV parser with quoted-field support",
	"Writing unit tests for the parser",
}

var families = []family{
	listFamily("TodoWrite", "todos", named("TodoWrite"), func(i int, status string, _ bool) map[string]any {
		return map[string]any{"content": Todos[i], "status": status, "activeForm": activeForms[i]}
	}),
	tasksFamily(),
	listFamily("write_todos", "todos", named("write_todos"), func(i int, status string, _ bool) map[string]any {
		return map[string]any{"description": Todos[i], "status": status}
	}),
	listFamily("update_plan", "plan", named("update_plan"), func(i int, status string, _ bool) map[string]any {
		return map[string]any{"step": Todos[i], "status": status}
	}),
	piFamily(),
	mcpFamily(listFamily("todosh MCP todo_write", "todos", mcpTodoWrite, todoWriteItem)),
	listFamily("todo_write", "todos", named("todo_write"), todoWriteItem),
}

// mcpFamily marks f as todosh's MCP tools.
func mcpFamily(f family) family {
	f.mcp = true
	return f
}

// chooseFamily returns the most preferred family tools offers; with
// preferMCP, todosh's MCP tools come first.
func chooseFamily(tools []Tool, preferMCP bool) (family, []Tool, bool) {
	for _, pass := range []bool{true, false} {
		for _, f := range families {
			if pass && !(preferMCP && f.mcp) {
				continue
			}
			if set, ok := f.match(tools); ok {
				return f, set, true
			}
		}
	}
	return family{}, nil, false
}

// named matches the tools with exactly these full names.
func named(names ...string) func([]Tool) ([]Tool, bool) {
	return func(tools []Tool) ([]Tool, bool) {
		var set []Tool
		for _, n := range names {
			t, ok := find(tools, n)
			if !ok {
				return nil, false
			}
			set = append(set, t)
		}
		return set, true
	}
}

// mcpTodoWrite matches todosh's todo_write behind any MCP prefix
// (mcp__todosh__todo_write, mcp_todosh_todo_write, a Responses namespace),
// preferring a server named todosh.
func mcpTodoWrite(tools []Tool) ([]Tool, bool) {
	var best []Tool
	for _, t := range tools {
		full := t.FullName()
		if full == "todo_write" || !(t.Namespace != "" && t.Name == "todo_write" || strings.HasSuffix(full, "_todo_write")) {
			continue
		}
		if strings.Contains(full, "todosh") {
			return []Tool{t}, true
		}
		if best == nil {
			best = []Tool{t}
		}
	}
	return best, best != nil
}

// todoWriteItem builds an item for todosh's todo_write and Qwen Code's: a
// schema that requires "id" (Qwen's) gets the item's number as a string.
func todoWriteItem(i int, status string, withID bool) map[string]any {
	item := map[string]any{"content": Todos[i], "status": status}
	if withID {
		item["id"] = strconv.Itoa(i + 1)
	}
	return item
}

// listFamily is a tool that takes the whole list on every call, under key.
func listFamily(name, key string, match func([]Tool) ([]Tool, bool), item func(i int, status string, withID bool) map[string]any) family {
	list := func(set []Tool, done int) []ActionCall {
		withID := requiresItemID(set[0].Schema, key)
		var items []map[string]any
		for i := range Todos {
			status := "pending"
			switch {
			case i < done:
				status = "completed"
			case i == done:
				status = "in_progress"
			}
			items = append(items, item(i, status, withID))
		}
		return []ActionCall{{Tool: set[0], Args: map[string]any{key: items}}}
	}
	return family{
		name:       name,
		match:      match,
		create:     func(set []Tool) []ActionCall { return list(set, 0) },
		createDone: func(set []Tool) []ActionCall { return list(set, len(Todos)) },
		complete: func(set []Tool, _ []Msg, done int) []ActionCall {
			return list(set, done+1)
		},
		remark: func(set []Tool, _ []Msg) []ActionCall { return list(set, 0) },
		progress: func(set []Tool, msgs []Msg) (bool, int) {
			created, done := false, 0
			for _, c := range calls(msgs) {
				if !sameTool(c.Name, set[0]) {
					continue
				}
				var args map[string][]struct{ Status string }
				if json.Unmarshal(c.Args, &args) != nil {
					continue
				}
				created, done = true, 0
				for _, it := range args[key] {
					if it.Status == "completed" {
						done++
					}
				}
			}
			return created, done
		},
	}
}

// sameTool reports whether a call in the history named name is a call of t.
// Codex may record a namespaced call under its bare name.
func sameTool(name string, t Tool) bool {
	return name == t.FullName() || t.Namespace != "" && name == t.Name
}

// requiresItemID reports whether the schema's list items require an "id".
func requiresItemID(schema json.RawMessage, key string) bool {
	var s struct {
		Properties map[string]struct {
			Items struct {
				Required []string `json:"required"`
			} `json:"items"`
		} `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return false
	}
	for _, r := range s.Properties[key].Items.Required {
		if r == "id" {
			return true
		}
	}
	return false
}

// taskID reads the id Claude Code gave a created task ("Task #2 created").
var taskID = regexp.MustCompile(`Task #(\w+)`)

// tasksFamily is Claude Code's TaskCreate/TaskUpdate: one item per call.
func tasksFamily() family {
	// ids returns the ids of the created tasks, in order of creation.
	ids := func(msgs []Msg) []string {
		res := results(msgs)
		var out []string
		for _, c := range calls(msgs) {
			if c.Name != "TaskCreate" {
				continue
			}
			id := strconv.Itoa(len(out) + 1)
			if m := taskID.FindStringSubmatch(res[c.ID]); m != nil {
				id = m[1]
			}
			out = append(out, id)
		}
		return out
	}
	return family{
		name:  "TaskCreate/TaskUpdate",
		match: named("TaskCreate", "TaskUpdate"),
		create: func(set []Tool) []ActionCall {
			var out []ActionCall
			for i, t := range Todos {
				out = append(out, ActionCall{Tool: set[0], Args: map[string]string{
					"subject": t, "description": t, "activeForm": activeForms[i]}})
			}
			return out
		},
		complete: func(set []Tool, msgs []Msg, done int) []ActionCall {
			id := ids(msgs)
			for len(id) < len(Todos) {
				id = append(id, strconv.Itoa(len(id)+1))
			}
			out := []ActionCall{{Tool: set[1], Args: map[string]string{"taskId": id[done], "status": "completed"}}}
			if done+1 < len(Todos) {
				out = append(out, ActionCall{Tool: set[1], Args: map[string]string{"taskId": id[done+1], "status": "in_progress"}})
			}
			return out
		},
		remark: func(set []Tool, msgs []Msg) []ActionCall {
			id := append(ids(msgs), "1")
			return []ActionCall{{Tool: set[1], Args: map[string]string{"taskId": id[0], "status": "in_progress"}}}
		},
		progress: func(_ []Tool, msgs []Msg) (bool, int) {
			completed := map[string]bool{}
			for _, c := range calls(msgs) {
				var a struct{ TaskID, Status string }
				if c.Name == "TaskUpdate" && json.Unmarshal(c.Args, &a) == nil && a.Status == "completed" {
					completed[a.TaskID] = true
				}
			}
			return len(ids(msgs)) >= len(Todos), len(completed)
		},
	}
}

// piFamily is the "todo" tool of pi's todo extension: add one item a call,
// toggle by its number (1, 2, 3 in order of adding).
func piFamily() family {
	count := func(msgs []Msg, action string) int {
		n := 0
		for _, c := range calls(msgs) {
			var a struct{ Action string }
			if c.Name == "todo" && json.Unmarshal(c.Args, &a) == nil && a.Action == action {
				n++
			}
		}
		return n
	}
	return family{
		name:  "pi todo",
		match: named("todo"),
		create: func(set []Tool) []ActionCall {
			var out []ActionCall
			for _, t := range Todos {
				out = append(out, ActionCall{Tool: set[0], Args: map[string]any{"action": "add", "text": t}})
			}
			return out
		},
		complete: func(set []Tool, _ []Msg, done int) []ActionCall {
			return []ActionCall{{Tool: set[0], Args: map[string]any{"action": "toggle", "id": done + 1}}}
		},
		progress: func(_ []Tool, msgs []Msg) (bool, int) {
			return count(msgs, "add") >= len(Todos), count(msgs, "toggle")
		},
	}
}
