package todostore

// Equality of sessions and lists, which decides whether a change changed anything.

import (
	"reflect"
	"slices"
)

// clone is a deep copy of a session for a change to work on.
func (s *Session) clone() *Session {
	c := *s
	c.Todos = CloneTodos(s.Todos)
	if s.Agent != nil {
		a := *s.Agent
		a.Tasks = slices.Clone(s.Agent.Tasks)
		c.Agent = &a
	}
	if s.Hooks != nil {
		h := *s.Hooks
		h.Before = CloneTodos(s.Hooks.Before)
		c.Hooks = &h
	}
	c.note, c.notes, c.dropped, c.revertOf, c.agentSees = "", nil, nil, 0, false
	return &c
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
		a.Sent == b.Sent && a.Given == b.Given && SameTodos(a.Before, b.Before)
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
