package agent

import (
	"strings"

	"github.com/todosh/todosh/todostore"
)

// MergeAgentList merges the list an agent just wrote (its whole list, as
// TodoWrite, update_plan and write_todos send it) into the session's
// current list, so that nothing the person added is silently lost:
//
//   - The agent's items come first in its order, with its text and status.
//     An item matches a current item with the same text (spaces around it
//     ignored; duplicates pair up in order).
//   - A matched item keeps what only the current one has: its subtasks
//     when the agent's item has none, its evidence, its activeForm, and
//     its origin (an item the person added stays the person's).
//   - A person's item (Origin "person") the agent left out stays, placed
//     right after the current item before it that is still in the list
//     (at the top when there is none), so it keeps its place among them.
//   - Any other current item the agent left out is returned in dropped,
//     for the caller to archive ("dropped by agent").
//
// Neither input is changed. Ids and derived statuses are left to
// todostore.Normalize, which every store write applies.
func MergeAgentList(current, agentList []todostore.Todo) (merged, dropped []todostore.Todo) {
	// Pair current items with agent items by text, first come first served.
	byText := map[string][]int{}
	for i, t := range current {
		k := mergeKey(t.Content)
		byText[k] = append(byText[k], i)
	}
	matchOf := make([]int, len(current)) // agent index + 1, 0 for none
	out := make([]todostore.Todo, len(agentList))
	for j, a := range agentList {
		out[j] = a
		if a.Subtasks != nil {
			out[j].Subtasks = append([]todostore.Subtask(nil), a.Subtasks...)
		}
		k := mergeKey(a.Content)
		idx := byText[k]
		if len(idx) == 0 {
			continue
		}
		i := idx[0]
		byText[k] = idx[1:]
		matchOf[i] = j + 1
		out[j] = mergeItem(current[i], out[j])
	}

	// Person items left out go after the agent item that their nearest
	// kept predecessor became; -1 means before every agent item.
	after := map[int][]todostore.Todo{}
	anchor := -1
	for i, t := range current {
		switch {
		case matchOf[i] > 0:
			anchor = matchOf[i] - 1
		case t.Origin == "person":
			after[anchor] = append(after[anchor], todostore.CloneTodos([]todostore.Todo{t})...)
		default:
			dropped = append(dropped, todostore.CloneTodos([]todostore.Todo{t})...)
		}
	}
	merged = make([]todostore.Todo, 0, len(out)+len(current))
	merged = append(merged, after[-1]...)
	for j, t := range out {
		merged = append(merged, t)
		merged = append(merged, after[j]...)
	}
	return merged, dropped
}

// mergeItem is the agent's version of an item completed with what only
// the current version has.
func mergeItem(cur, a todostore.Todo) todostore.Todo {
	if len(a.Subtasks) == 0 && len(cur.Subtasks) > 0 {
		a.Subtasks = append([]todostore.Subtask(nil), cur.Subtasks...)
	}
	if a.Evidence == "" {
		a.Evidence = cur.Evidence
	}
	if a.ActiveForm == "" {
		a.ActiveForm = cur.ActiveForm
	}
	if cur.Origin != "" {
		a.Origin = cur.Origin
	}
	return a
}

// mergeKey is what two items must share to be the same item.
func mergeKey(content string) string { return strings.TrimSpace(content) }
