package todolist

import (
	"fmt"
	"strconv"
	"strings"
)

// The list operations below take 0-based indexes that the caller has
// already checked against the list (commands resolves positions, agent
// resolves ids). They enforce the model's rules and leave the list unchanged
// when they return an error.

// InsertTodo inserts t so that it becomes todos[index]; index may equal
// len(todos) to append.
func InsertTodo(todos []Todo, index int, t Todo) ([]Todo, error) {
	if index < 0 || index > len(todos) {
		return todos, fmt.Errorf("index %d out of range", index)
	}
	if len(todos) >= MaxTodos {
		return todos, fmt.Errorf("the list has %d todos, the limit: %w", MaxTodos, ErrLimit)
	}
	if err := CheckText("text", t.Content); err != nil {
		return todos, err
	}
	if t.Status == "" {
		t.Status = Pending
	}
	// Deep copies: Normalize renumbers subtask ids, which must not show
	// through subtask slices shared with the caller's list.
	out := make([]Todo, 0, len(todos)+1)
	out = append(out, CloneTodos(todos[:index])...)
	out = append(out, t)
	out = append(out, CloneTodos(todos[index:])...)
	Normalize(out)
	return out, nil
}

// InsertSubtask inserts s as subtask index of todos[item]. Adding an open
// subtask to a completed item reopens it, by the derived-status rule.
func InsertSubtask(todos []Todo, item, index int, s Subtask) error {
	t := &todos[item]
	if index < 0 || index > len(t.Subtasks) {
		return fmt.Errorf("index %d out of range", index)
	}
	if len(t.Subtasks) >= MaxSubtasks {
		return fmt.Errorf("todo %d has %d subtasks, the limit: %w", item+1, MaxSubtasks, ErrLimit)
	}
	if err := CheckText("text", s.Content); err != nil {
		return err
	}
	if s.Status == "" {
		s.Status = Pending
	}
	subs := make([]Subtask, 0, len(t.Subtasks)+1)
	subs = append(subs, t.Subtasks[:index]...)
	subs = append(subs, s)
	subs = append(subs, t.Subtasks[index:]...)
	t.Subtasks = subs
	Normalize(todos)
	return nil
}

// RemoveTodo deletes todos[index] with its subtasks and returns a new
// list; the caller's list is not changed.
func RemoveTodo(todos []Todo, index int) []Todo {
	out := append(CloneTodos(todos[:index]), CloneTodos(todos[index+1:])...)
	Normalize(out)
	return out
}

// RemoveSubtask deletes subtask sub of todos[item]. Removing the last
// subtask leaves the item with the status it last had.
func RemoveSubtask(todos []Todo, item, sub int) {
	t := &todos[item]
	t.Subtasks = append(append([]Subtask{}, t.Subtasks[:sub]...), t.Subtasks[sub+1:]...)
	if len(t.Subtasks) == 0 {
		t.Subtasks = nil
	}
	Normalize(todos)
}

// SetStatus sets the status of todos[item]. An item with subtasks has a
// derived status: completing it while subtasks are open, or reopening it
// while some are ticked, is refused with an error that names them, so no
// tick is changed behind the person's back. Reopening clears evidence.
func SetStatus(todos []Todo, item int, st Status) error {
	t := &todos[item]
	if len(t.Subtasks) > 0 {
		switch st {
		case Completed:
			if open := OpenSubtaskIDs(*t); len(open) > 0 {
				return fmt.Errorf("todo %d has open subtasks %s: tick them first (its status follows its subtasks)", item+1, strings.Join(open, ", "))
			}
		case Pending:
			if done := doneSubtaskIDs(*t); len(done) > 0 && t.Status != Cancelled {
				return fmt.Errorf("todo %d has ticked subtasks %s: untick them instead (its status follows its subtasks)", item+1, strings.Join(done, ", "))
			}
		}
	}
	if st == Pending || st == InProgress {
		t.Evidence = ""
	}
	t.Status = st
	Normalize(todos)
	return nil
}

// doneSubtaskIDs lists the positions of the ticked subtasks of t.
func doneSubtaskIDs(t Todo) []string {
	var ids []string
	for _, s := range t.Subtasks {
		if s.Status == Completed {
			ids = append(ids, s.ID)
		}
	}
	return ids
}

// SetSubtaskStatus ticks (Completed) or unticks (Pending) a subtask and
// updates its parent's derived status.
func SetSubtaskStatus(todos []Todo, item, sub int, st Status) error {
	if st != Pending && st != Completed {
		return fmt.Errorf("subtasks are pending or completed, not %s", st)
	}
	t := &todos[item]
	if t.Status == Cancelled && st == Pending {
		t.Status = Pending
	}
	OwnSubtasks(t) // shared with other lists (copy on write)
	t.Subtasks[sub].Status = st
	if st == Pending {
		t.Subtasks[sub].Evidence = "" // it no longer proves anything
	}
	Normalize(todos)
	return nil
}

// OpenSubtaskIDs lists the positions ("2.1") of the open subtasks of t,
// as Normalize numbered them.
func OpenSubtaskIDs(t Todo) []string {
	var ids []string
	for j, s := range t.Subtasks {
		if s.Status != Completed {
			id := s.ID
			if id == "" {
				id = fmt.Sprintf("%s.%d", t.ID, j+1)
			}
			ids = append(ids, id)
		}
	}
	return ids
}

// FindID resolves an id as written in the file ("3" or "2.1") to 0-based
// indexes; sub is -1 for a todo. Ids equal positions, so this also serves
// the agent's todo_tick.
func FindID(todos []Todo, id string) (item, sub int, err error) {
	head, tail, hasSub := strings.Cut(strings.TrimSpace(id), ".")
	n, err := strconv.Atoi(head)
	if err != nil || n < 1 || n > len(todos) {
		return 0, 0, fmt.Errorf("no todo with id %q (the list has %d)", id, len(todos))
	}
	if !hasSub {
		return n - 1, -1, nil
	}
	m, err := strconv.Atoi(tail)
	if err != nil || m < 1 || m > len(todos[n-1].Subtasks) {
		return 0, 0, fmt.Errorf("no subtask with id %q (todo %d has %d subtasks)", id, n, len(todos[n-1].Subtasks))
	}
	return n - 1, m - 1, nil
}
