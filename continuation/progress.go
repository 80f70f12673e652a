package continuation

import (
	"strings"

	"github.com/todosh/todosh/todolist"
)

// Completion is an item or subtask that became completed in a turn.
type Completion struct {
	// Key names the entry for the high-water mark: its stable uid ("t7",
	// "s12"), or for a list without uids (a test, a list not yet written)
	// its content, lower case and spaced once.
	Key string
	// Item is the key of the item it belongs to (itself for an item): a
	// receipt is an item's.
	Item string
	// Pos is the item's index in the list after the turn.
	Pos int
}

// Completions lists what became completed between before and after: an
// item or subtask completed in after whose partner in before was not.
// Partners are found by stable uid, and in lists without uids by the
// pairing of the package doc. A new entry that is completed already, a
// cancellation, a removal, a reorder or a rewording is not a completion,
// so a model cannot keep itself going by shuffling its list.
func Completions(before, after []todolist.Todo) []Completion {
	if todolist.SameTodos(before, after) {
		return nil // the turn that changed nothing, without matching items
	}
	var out []Completion
	pair := pairTodos(before, after)
	for i, j := range pair {
		if j < 0 {
			continue
		}
		b, a := before[j], after[i]
		key := itemKey(a)
		if a.Status == todolist.Completed && b.Status != todolist.Completed {
			out = append(out, Completion{Key: key, Item: key, Pos: i})
		}
		for k, l := range pairSubtasks(b.Subtasks, a.Subtasks) {
			if l >= 0 && b.Subtasks[l].Status != todolist.Completed && a.Subtasks[k].Status == todolist.Completed {
				out = append(out, Completion{Key: subtaskKey(key, a.Subtasks[k]), Item: key, Pos: i})
			}
		}
	}
	return out
}

// Progressed reports whether anything became completed between before
// and after (Completions), without the high-water mark or receipts the
// policy adds.
func Progressed(before, after []todolist.Todo) bool {
	return len(Completions(before, after)) > 0
}

// ItemKey is the key Completion.Item gives t: its uid, or its content in a
// list without uids.
func ItemKey(t todolist.Todo) string { return itemKey(t) }

func itemKey(t todolist.Todo) string {
	if t.UID != "" {
		return t.UID
	}
	return "c:" + matchKey(t.Content)
}

func subtaskKey(item string, s todolist.Subtask) string {
	if s.UID != "" {
		return s.UID
	}
	return item + "/" + matchKey(s.Content)
}

// openCount is the number of todos with work remaining, counting unknown
// statuses as open the same way Todo.IsOpen does.
func openCount(todos []todolist.Todo) int {
	n := 0
	for _, t := range todos {
		if t.IsOpen() {
			n++
		}
	}
	return n
}

// pairTodos pairs every item of after with an item of before: by uid when
// both lists carry them, else by match.
func pairTodos(before, after []todolist.Todo) []int {
	if pair, ok := pairByUID(before, after, func(t todolist.Todo) string { return t.UID }); ok {
		return pair
	}
	return matchTodos(before, after)
}

// pairByUID pairs every item of after with the item of before that has the
// same uid, or -1 when before has none. ok is false, and nothing paired,
// unless both lists have items and every item has its stable id, as every
// list read from the store does.
func pairByUID[T any](before, after []T, uid func(T) string) (pair []int, ok bool) {
	if len(before) == 0 || len(after) == 0 {
		return nil, false
	}
	for _, l := range [][]T{before, after} {
		for _, x := range l {
			if uid(x) == "" {
				return nil, false
			}
		}
	}
	at := make(map[string]int, len(before))
	for j, x := range before {
		at[uid(x)] = j
	}
	pair = make([]int, len(after))
	for i, x := range after {
		pair[i] = -1
		if j, ok := at[uid(x)]; ok {
			pair[i] = j
		}
	}
	return pair, true
}

// pairSubtasks pairs subtasks as pairTodos pairs items.
func pairSubtasks(before, after []todolist.Subtask) []int {
	if pair, ok := pairByUID(before, after, func(s todolist.Subtask) string { return s.UID }); ok {
		return pair
	}
	keys := func(ss []todolist.Subtask) []string {
		out := make([]string, len(ss))
		for i, s := range ss {
			out[i] = matchKey(s.Content)
		}
		return out
	}
	return match(keys(before), keys(after))
}

// matchTodos pairs every item of after with an item of before; see match.
func matchTodos(before, after []todolist.Todo) []int {
	keys := func(ts []todolist.Todo) []string {
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

// TextKey is an item text as the policy compares texts across lists
// (Turn.Known): case and runs of white space do not matter.
func TextKey(s string) string { return matchKey(s) }

// KnownFrom is a Turn.Known that calls texts, the caller's read of the
// item texts of its history up to the person's prompt (by TextKey), once
// and only when the policy asks: it asks only for an item written
// completed, never seen open, without a receipt.
func KnownFrom(texts func() map[string]bool) func(key string) bool {
	var known map[string]bool
	return func(key string) bool {
		if known == nil {
			known = texts()
		}
		return known[key]
	}
}

// matchKey is the content compared across lists: case and runs of white
// space do not matter, so "Write  tests" and "write tests" are one item.
func matchKey(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}
