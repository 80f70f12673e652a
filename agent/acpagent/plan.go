package acpagent

import (
	"regexp"
	"strings"
	"unicode/utf8"

	acp "github.com/coder/acp-go-sdk"

	"github.com/todosh/todosh/todostore"
)

// PlanTodos maps an ACP plan onto todos. A plan has no ids and no
// cancelled: entries are matched to the list by text (the merge rule, as
// for Codex), an unknown status reads as pending, empty entries are
// skipped, and texts and lists over the store's limits are cut (cut is
// then true) so a plan the store would refuse still keeps what fits.
func PlanTodos(entries []acp.PlanEntry) (todos []todostore.Todo, cut bool) {
	for _, e := range entries {
		content := strings.TrimSpace(e.Content)
		if content == "" {
			continue
		}
		if len(todos) == todostore.MaxTodos {
			return todos, true
		}
		if utf8.RuneCountInString(content) > todostore.MaxTextLen {
			content = string([]rune(content)[:todostore.MaxTextLen-1]) + "…"
			cut = true
		}
		st := todostore.Pending
		switch e.Status {
		case acp.PlanEntryStatusInProgress:
			st = todostore.InProgress
		case acp.PlanEntryStatusCompleted:
			st = todostore.Completed
		}
		todos = append(todos, todostore.Todo{Content: content, Status: st})
	}
	return todos, cut
}

// tickCompleted ticks the subtasks of items the plan completed: a plan
// knows no subtasks, and completing an item is the agent's word that its
// checklist is done.
func tickCompleted(todos []todostore.Todo) {
	for i := range todos {
		if todos[i].Status != todostore.Completed {
			continue
		}
		for j := range todos[i].Subtasks {
			todos[i].Subtasks[j].Status = todostore.Completed
		}
	}
}

// WriteTodosInput reads the items of a whole-list todo call from a tool
// call's raw input, for agents that send the call but no plan: Gemini
// CLI's write_todos ({"todos":[{"description","status"}]}), a TodoWrite
// ({"todos":[{"content","status"}]}), Codex's update_plan replayed
// ({"plan":[{"step","status"}]}). ok is false when the input holds no
// such list.
func WriteTodosInput(raw any) (entries []acp.PlanEntry, ok bool) {
	m, isMap := raw.(map[string]any)
	if !isMap {
		return nil, false
	}
	list, isList := m["todos"].([]any)
	if !isList {
		if list, isList = m["plan"].([]any); !isList {
			return nil, false
		}
	}
	entries = []acp.PlanEntry{}
	for _, v := range list {
		it, _ := v.(map[string]any)
		text := ""
		for _, k := range []string{"description", "content", "step", "text"} {
			if s, _ := it[k].(string); s != "" {
				text = s
				break
			}
		}
		st, _ := it["status"].(string)
		if text == "" || st == "cancelled" {
			continue
		}
		entries = append(entries, acp.PlanEntry{Content: text, Status: acp.PlanEntryStatus(st), Priority: acp.PlanEntryPriorityMedium})
	}
	return entries, true
}

// setTodosRegexp matches the title Gemini CLI gives a write_todos call
// over ACP, whose content is empty: "Set 3 todo(s)".
var setTodosRegexp = regexp.MustCompile(`(?i)^set \d+ todo`)

// setTodosTitle reports whether a tool call's title says the agent set
// its own todo list.
func setTodosTitle(title string) bool {
	return setTodosRegexp.MatchString(title) || strings.Contains(strings.ToLower(title), "write_todos")
}
