package acpagent

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/todosh/todosh/todolist"

	acp "github.com/coder/acp-go-sdk"
)

// PlanTodos maps an ACP plan onto todos. A plan has no ids and no
// cancelled: entries are matched to the list by text (the merge rule, as
// for Codex), an unknown status reads as pending, empty entries are
// skipped, and texts and lists over the store's limits are cut (cut is
// then true) so a plan the store would refuse still keeps what fits.
func PlanTodos(entries []acp.PlanEntry) (todos []todolist.Todo, cut bool) {
	for _, e := range entries {
		content := strings.TrimSpace(e.Content)
		if content == "" {
			continue
		}
		if len(todos) == todolist.MaxTodos {
			return todos, true
		}
		if utf8.RuneCountInString(content) > todolist.MaxTextLen {
			content = string([]rune(content)[:todolist.MaxTextLen-1]) + "…"
			cut = true
		}
		st := todolist.Pending
		switch e.Status {
		case acp.PlanEntryStatusInProgress:
			st = todolist.InProgress
		case acp.PlanEntryStatusCompleted:
			st = todolist.Completed
		}
		todos = append(todos, todolist.Todo{Content: content, Status: st})
	}
	return todos, cut
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

// setTodosTitle reports whether a tool call's title says the agent set
// its own todo list: the title Gemini CLI gives a write_todos call over
// ACP, whose content is empty, "Set 3 todo(s)" (in any case), or one that
// names write_todos. Plain string code: a regular expression compiled at
// every start of todosh cost more than all the titles it ever read.
func setTodosTitle(title string) bool {
	if rest, ok := cutFoldPrefix(title, "set "); ok {
		digits := len(rest) - len(strings.TrimLeft(rest, "0123456789"))
		if _, ok := cutFoldPrefix(rest[digits:], " todo"); ok && digits > 0 {
			return true
		}
	}
	return strings.Contains(strings.ToLower(title), "write_todos")
}

// cutFoldPrefix is s after prefix (ASCII), matched under Unicode case
// folding as a regular expression's (?i) matches it ("ſ" is an "s").
func cutFoldPrefix(s, prefix string) (string, bool) {
	for _, p := range prefix {
		r, n := utf8.DecodeRuneInString(s)
		if n == 0 || !foldEqual(r, p) {
			return "", false
		}
		s = s[n:]
	}
	return s, true
}

// foldEqual reports whether r and p are the same letter under simple
// case folding.
func foldEqual(r, p rune) bool {
	for f := unicode.SimpleFold(p); r != p && f != p; f = unicode.SimpleFold(f) {
		if r == f {
			return true
		}
	}
	return r == p
}
