package todostore

import (
	"reflect"
	"slices"

	"github.com/todosh/todosh/todolist"
)

// clone is a deep copy of a session for a change to work on.
func (s *Session) clone() *Session {
	return s.cloneWith(todolist.CloneTodos)
}

// cloneForChange is clone for the session a change function gets: its
// items are its own, but their subtask arrays are the cache's, shared
// (copy on write, ARCHITECTURE.md §3): whatever changes an item's
// subtasks gives the item its own array first (todolist.OwnSubtasks), and an
// append makes a new array because each shared one is clipped to its
// length. A tick on a list of 20 items of 50 subtasks copies 50 subtasks,
// not 1,000.
func (s *Session) cloneForChange() *Session {
	return s.cloneWith(shareTodos)
}

// shareTodos copies a list's items and shares their subtask arrays,
// clipped so that an append cannot write into them.
func shareTodos(todos []todolist.Todo) []todolist.Todo {
	return todolist.CopyTodos(todos, func(_ int, t todolist.Todo) []todolist.Subtask { return clipped(t.Subtasks) })
}

// clipped is subs with no room to append into, nil when empty.
func clipped(subs []todolist.Subtask) []todolist.Subtask {
	if len(subs) == 0 {
		return nil
	}
	return subs[:len(subs):len(subs)]
}

// cloneWith is clone with todos' copy made by cp.
func (s *Session) cloneWith(cp func([]todolist.Todo) []todolist.Todo) *Session {
	c := *s
	c.Todos = cp(s.Todos)
	if s.Agent != nil {
		a := *s.Agent
		a.Tasks = slices.Clone(s.Agent.Tasks)
		c.Agent = &a
	}
	if s.Hooks != nil {
		h := *s.Hooks
		h.Before = todolist.CloneTodos(s.Hooks.Before)
		h.Done, h.Unverified, h.First = slices.Clone(h.Done), slices.Clone(h.Unverified), todolist.CloneTodos(h.First)
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
	return s.cloneWith(func(todos []todolist.Todo) []todolist.Todo {
		return todolist.CopyTodos(todos, func(i int, t todolist.Todo) []todolist.Subtask {
			if len(t.Subtasks) > 0 && i < len(prev.Todos) && (same != nil && same(i) || todolist.SameSubtasks(prev.Todos[i].Subtasks, t.Subtasks)) {
				return prev.Todos[i].Subtasks
			}
			// s's own array, or one it shares: nothing writes into
			// either any more (copy on write, todolist.OwnSubtasks).
			return clipped(t.Subtasks)
		})
	})
}

// sameState reports whether two sessions would be written alike, apart
// from their time and archive.
func sameState(a, b *Session) bool {
	if !todolist.SameTodos(a.Todos, b.Todos) || a.Paused != b.Paused || a.PauseReason != b.PauseReason ||
		a.Cwd != b.Cwd || a.CreatedAt != b.CreatedAt || a.Session != b.Session || a.Version != b.Version ||
		a.AgentRead != b.AgentRead || !todolist.SameUIDs(a.Todos, b.Todos) {
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
		a.Sent == b.Sent && a.Given == b.Given && todolist.SameTodos(a.Before, b.Before) &&
		slices.Equal(a.Done, b.Done) && slices.Equal(a.Unverified, b.Unverified) && todolist.SameTodos(a.First, b.First) &&
		slices.Equal(a.Held, b.Held) && slices.Equal(a.Offered, b.Offered)
}

func normTasks(a AgentRef) AgentRef {
	if len(a.Tasks) == 0 {
		a.Tasks = nil
	}
	return a
}
