package todolist

// Equality of lists, which decides whether a change changed anything (a
// session's own fields are compared in todostore/clone.go).

import (
	"maps"
)

// CopyTodos copies a list's items, each with its own map of unknown
// fields, and gives each the subtasks sub returns for it.
func CopyTodos(todos []Todo, sub func(i int, t Todo) []Subtask) []Todo {
	if todos == nil {
		return nil
	}
	out := make([]Todo, len(todos))
	for i, t := range todos {
		out[i] = t
		if t.Extra != nil {
			out[i].Extra = maps.Clone(t.Extra)
		}
		out[i].Subtasks = sub(i, t)
	}
	return out
}

// SameSubtasks reports whether two arrays of subtasks hold the same
// values in every field, stable ids and revisions included, and no
// fields this todosh does not know (whose maps a copy does not share).
func SameSubtasks(a, b []Subtask) bool {
	if len(a) != len(b) {
		return false
	}
	if SameArray(a, b) {
		return true
	}
	for j := range a {
		if !SameSubtask(a[j], b[j]) || a[j].UID != b[j].UID || a[j].Rev != b[j].Rev || a[j].Extra != nil || b[j].Extra != nil {
			return false
		}
	}
	return true
}

// SameTodos reports whether two lists are equal field by field, treating
// nil and empty subtask lists alike.
func SameTodos(a, b []Todo) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true // one list (todostore's onlyMarks compares a session's with itself)
	}
	for i := range a {
		if !SameTodo(a[i], b[i]) {
			return false
		}
	}
	return true
}

// SameTodo reports whether two items are equal in the fields todosh
// knows but stable ids and revisions, their subtasks' included.
func SameTodo(x, y Todo) bool {
	if x.ID != y.ID || x.Content != y.Content || x.Status != y.Status || x.ActiveForm != y.ActiveForm ||
		x.Evidence != y.Evidence || x.Origin != y.Origin || len(x.Subtasks) != len(y.Subtasks) {
		return false
	}
	if SameArray(x.Subtasks, y.Subtasks) {
		return true
	}
	for j := range x.Subtasks {
		if !SameSubtask(x.Subtasks[j], y.Subtasks[j]) {
			return false
		}
	}
	return true
}

// SameSubtask compares the fields of two subtasks that todosh knows.
func SameSubtask(a, b Subtask) bool {
	return a.ID == b.ID && a.Content == b.Content && a.Status == b.Status && a.Evidence == b.Evidence && a.Origin == b.Origin
}

// SameArray reports whether two lists of subtasks are one array of one
// length: nothing writes into a subtask array that may be shared (copy on
// write, OwnSubtasks), so they are alike without comparing.
func SameArray(a, b []Subtask) bool {
	return len(a) > 0 && len(a) == len(b) && &a[0] == &b[0]
}

// OwnSubtasks gives t an array of subtasks of its own, a copy of the one
// it has. Subtask arrays are shared between the lists a change function
// gets, the cache's and the lists callers were given (ARCHITECTURE.md
// §3), so whatever writes into an item's subtasks in place calls it first;
// building a new slice (append, a new array) needs nothing.
func OwnSubtasks(t *Todo) {
	t.Subtasks = cloneSubtasks(t.Subtasks)
}
