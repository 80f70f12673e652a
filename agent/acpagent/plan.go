package acpagent

import (
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
