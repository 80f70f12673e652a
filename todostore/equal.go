package todostore

// Equality of sessions and lists, which decides whether a change changed anything.

import (
	"maps"
	"reflect"
	"slices"
)

// clone is a deep copy of a session for a change to work on.
func (s *Session) clone() *Session {
	return s.cloneWith(CloneTodos)
}

// cloneForChange is clone for the session a change function gets: its
// items are its own, but their subtask arrays are the cache's, shared
// (copy on write, ARCHITECTURE.md §3): whatever changes an item's
// subtasks gives the item its own array first (OwnSubtasks), and an
// append makes a new array because each shared one is clipped to its
// length. A tick on a list of 20 items of 50 subtasks copies 50 subtasks,
// not 1,000.
func (s *Session) cloneForChange() *Session {
	return s.cloneWith(shareTodos)
}

// shareTodos copies a list's items and shares their subtask arrays,
// clipped so that an append cannot write into them.
func shareTodos(todos []Todo) []Todo {
	return copyTodos(todos, func(_ int, t Todo) []Subtask { return clipped(t.Subtasks) })
}

// copyTodos copies a list's items, each with its own map of unknown
// fields, and gives each the subtasks sub returns for it.
func copyTodos(todos []Todo, sub func(i int, t Todo) []Subtask) []Todo {
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

// clipped is subs with no room to append into, nil when empty.
func clipped(subs []Subtask) []Subtask {
	if len(subs) == 0 {
		return nil
	}
	return subs[:len(subs):len(subs)]
}

// cloneWith is clone with todos' copy made by cp.
func (s *Session) cloneWith(cp func([]Todo) []Todo) *Session {
	c := *s
	c.Todos = cp(s.Todos)
	if s.Agent != nil {
		a := *s.Agent
		a.Tasks = slices.Clone(s.Agent.Tasks)
		c.Agent = &a
	}
	if s.Hooks != nil {
		h := *s.Hooks
		h.Before = CloneTodos(s.Hooks.Before)
		h.Done, h.Unverified, h.First = slices.Clone(h.Done), slices.Clone(h.Unverified), CloneTodos(h.First)
		h.Held, h.Offered = slices.Clone(s.Hooks.Held), slices.Clone(s.Hooks.Offered)
		c.Hooks = &h
	}
	c.note, c.notes, c.dropped, c.revertOf, c.agentSees = "", nil, nil, 0, false
	return &c
}

// cloneSharing is clone for a session that follows prev, which nothing
// changes any more (the cache's): an item whose subtasks are prev's at
// the same position, in every field, gets prev's array of them rather than
// a copy. A change to one subtask of a list of 20 items of 50 subtasks
// copies 50 subtasks, not 1,000. same, when not nil, says which items
// are prev's at their position in every field already (their encodings
// were reused, encode.go), so they are not compared again.
func (s *Session) cloneSharing(prev *Session, same func(i int) bool) *Session {
	return s.cloneWith(func(todos []Todo) []Todo {
		return copyTodos(todos, func(i int, t Todo) []Subtask {
			if len(t.Subtasks) > 0 && i < len(prev.Todos) && (same != nil && same(i) || sameSubtasks(prev.Todos[i].Subtasks, t.Subtasks)) {
				return prev.Todos[i].Subtasks
			}
			// s's own array, or one it shares: nothing writes into
			// either any more (copy on write, OwnSubtasks).
			return clipped(t.Subtasks)
		})
	})
}

// sameSubtasks reports whether two arrays of subtasks hold the same
// values in every field, stable ids and revisions included, and no
// fields this todosh does not know (whose maps a copy does not share).
func sameSubtasks(a, b []Subtask) bool {
	if len(a) != len(b) {
		return false
	}
	if sameArray(a, b) {
		return true
	}
	for j := range a {
		if !sameSubtask(a[j], b[j]) || a[j].UID != b[j].UID || a[j].Rev != b[j].Rev || a[j].Extra != nil || b[j].Extra != nil {
			return false
		}
	}
	return true
}

// sameState reports whether two sessions would be written alike, apart
// from their time and archive.
func sameState(a, b *Session) bool {
	if !SameTodos(a.Todos, b.Todos) || a.Paused != b.Paused || a.PauseReason != b.PauseReason ||
		a.Cwd != b.Cwd || a.CreatedAt != b.CreatedAt || a.Session != b.Session || a.Version != b.Version ||
		a.AgentRead != b.AgentRead || !sameUIDs(a.Todos, b.Todos) {
		return false
	}
	if (a.Agent == nil) != (b.Agent == nil) || !sameHooks(a.Hooks, b.Hooks) {
		return false
	}
	return a.Agent == nil || reflect.DeepEqual(normTasks(*a.Agent), normTasks(*b.Agent))
}

// sameHooks compares two hook states, nil and empty lists alike.
func sameHooks(a, b *HookState) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.NoProgress == b.NoProgress && a.PerPrompt == b.PerPrompt && a.LastList == b.LastList && a.Level == b.Level &&
		a.Sent == b.Sent && a.Given == b.Given && SameTodos(a.Before, b.Before) &&
		slices.Equal(a.Done, b.Done) && slices.Equal(a.Unverified, b.Unverified) && SameTodos(a.First, b.First) &&
		slices.Equal(a.Held, b.Held) && slices.Equal(a.Offered, b.Offered)
}

func normTasks(a AgentRef) AgentRef {
	if len(a.Tasks) == 0 {
		a.Tasks = nil
	}
	return a
}

// SameTodos reports whether two lists are equal field by field, treating
// nil and empty subtask lists alike.
func SameTodos(a, b []Todo) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true // one list (onlyMarks compares a session's with itself)
	}
	for i := range a {
		if !sameTodo(a[i], b[i]) {
			return false
		}
	}
	return true
}

func sameTodo(x, y Todo) bool {
	if x.ID != y.ID || x.Content != y.Content || x.Status != y.Status || x.ActiveForm != y.ActiveForm ||
		x.Evidence != y.Evidence || x.Origin != y.Origin || len(x.Subtasks) != len(y.Subtasks) {
		return false
	}
	if sameArray(x.Subtasks, y.Subtasks) {
		return true
	}
	for j := range x.Subtasks {
		if !sameSubtask(x.Subtasks[j], y.Subtasks[j]) {
			return false
		}
	}
	return true
}

// sameSubtask compares the fields of two subtasks that todosh knows.
func sameSubtask(a, b Subtask) bool {
	return a.ID == b.ID && a.Content == b.Content && a.Status == b.Status && a.Evidence == b.Evidence && a.Origin == b.Origin
}

// sameArray reports whether two lists of subtasks are one array of one
// length: nothing writes into a subtask array that may be shared (copy on
// write, OwnSubtasks), so they are alike without comparing.
func sameArray(a, b []Subtask) bool {
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
