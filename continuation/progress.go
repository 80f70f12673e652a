package continuation

import (
	"strings"

	"github.com/todosh/todosh/todostore"
)

// Progressed reports whether a turn made progress: an item or subtask became
// completed or cancelled, or the number of open items fell. Any other change
// (a new item, a reorder, a rename, an item started) is not progress, so a
// model cannot keep itself going by shuffling its list. Items are matched as
// described in the package doc: by content, then by position.
func Progressed(before, after []todostore.Todo) bool {
	if todostore.SameTodos(before, after) {
		return false // the turn that changed nothing, without matching items
	}
	if openCount(after) < openCount(before) {
		return true
	}
	for i, j := range matchTodos(before, after) {
		if j < 0 {
			continue
		}
		b, a := before[j], after[i]
		if b.IsOpen() && !a.IsOpen() {
			return true
		}
		if subtaskFinished(b.Subtasks, a.Subtasks) {
			return true
		}
	}
	return false
}

// openCount is the number of todos with work remaining, counting unknown
// statuses as open the same way Todo.IsOpen does.
func openCount(todos []todostore.Todo) int {
	n := 0
	for _, t := range todos {
		if t.IsOpen() {
			n++
		}
	}
	return n
}

// subtaskFinished reports whether a subtask of a matched item went from not
// completed to completed.
func subtaskFinished(before, after []todostore.Subtask) bool {
	keys := func(ss []todostore.Subtask) []string {
		out := make([]string, len(ss))
		for i, s := range ss {
			out[i] = matchKey(s.Content)
		}
		return out
	}
	for i, j := range match(keys(before), keys(after)) {
		if j >= 0 && before[j].Status != todostore.Completed && after[i].Status == todostore.Completed {
			return true
		}
	}
	return false
}

// matchTodos pairs every item of after with an item of before; see match.
func matchTodos(before, after []todostore.Todo) []int {
	keys := func(ts []todostore.Todo) []string {
		out := make([]string, len(ts))
		for i, t := range ts {
			out[i] = matchKey(t.Content)
		}
		return out
	}
	return match(keys(before), keys(after))
}

// match returns, for each index of after, the index of its partner in before
// or -1 for a new entry. Three passes, each only over what is still unpaired:
// equal content at the same position; equal content anywhere, first unused
// occurrence first (so duplicates pair in order and a moved item keeps its
// history); then the same position, so an item reworded in place is still
// the same item.
func match(before, after []string) []int {
	pair := make([]int, len(after))
	used := make([]bool, len(before))
	for i, k := range after {
		pair[i] = -1
		if i < len(before) && before[i] == k {
			pair[i], used[i] = i, true
		}
	}
	byKey := make(map[string][]int, len(before))
	for j, k := range before {
		if !used[j] {
			byKey[k] = append(byKey[k], j)
		}
	}
	for i, k := range after {
		if pair[i] >= 0 {
			continue
		}
		if js := byKey[k]; len(js) > 0 {
			pair[i], used[js[0]] = js[0], true
			byKey[k] = js[1:]
		}
	}
	for i := range after {
		if pair[i] < 0 && i < len(before) && !used[i] {
			pair[i], used[i] = i, true
		}
	}
	return pair
}

// matchKey is the content compared across lists: case and runs of white
// space do not matter, so "Write  tests" and "write tests" are one item.
func matchKey(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}
