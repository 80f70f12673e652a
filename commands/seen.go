package commands

import (
	"errors"
	"fmt"

	"github.com/todosh/todosh/todolist"
)

// Positions the person types resolve against the list they last saw
// (Env.Seen), not against the list as it is when the command runs: other
// processes (an agent's hooks, todosh mcp, a second shell) may have
// reordered it in between. A position is resolved in the seen list and
// followed to its entry in the current list by stable id; an entry that
// is no longer there refuses the command, which then shows the list as it
// is (docs/commands.md, "Positions").

// errSeenGone is wrapped by the refusal of a position whose entry left
// the list since the person saw it.
var errSeenGone = errors.New("the list changed since you last saw it")

// staleError refuses a command whose position named an entry that left
// the list; now is the list as it is, which the command shows.
type staleError struct {
	msg string
	now []todolist.Todo
}

func (e *staleError) Error() string { return e.msg }
func (e *staleError) Unwrap() error { return errSeenGone }

// seen is the list positions resolve against: Env.Seen's when update
// found it not the list now (call.unseen), else now, the list update
// read, itself.
func (x *call) seen(now []todolist.Todo) []todolist.Todo {
	if x.unseen {
		return x.seenList
	}
	return now
}

// targets resolves sel against the seen list and follows each target to
// the current list now.
func (x *call) targets(sel Selection, now []todolist.Todo) ([]Target, error) {
	seen := x.seen(now)
	ts, err := sel.Targets(seen)
	if err != nil || sameSlice(seen, now) {
		return ts, unseen(err, seen, now)
	}
	for i, t := range ts {
		if ts[i], err = follow(seen, now, t, sel.String()); err != nil {
			return nil, err
		}
	}
	return ts, nil
}

// target is targets for one position.
func (x *call) target(p Position, now []todolist.Todo) (item, sub int, err error) {
	seen := x.seen(now)
	item, sub, err = p.Target(seen)
	if err != nil || sameSlice(seen, now) {
		return item, sub, unseen(err, seen, now)
	}
	t, err := follow(seen, now, Target{Item: item, Sub: sub}, p.String())
	return t.Item, t.Sub, err
}

// insertAt resolves p for /todo add against the seen list and finds the
// same place in the current list: before the entry that was at the
// position, or after the one before it when the position was one past
// the end; "last" and N.last append to what is there now.
func (x *call) insertAt(p Position, now []todolist.Todo) (item, sub int, err error) {
	seen := x.seen(now)
	item, sub, err = p.InsertAt(seen)
	if err != nil || sameSlice(seen, now) {
		return item, sub, unseen(err, seen, now)
	}
	if p.Last {
		return len(now), -1, nil
	}
	if sub < 0 {
		at, err := place(item, len(seen), func(i int) (int, error) {
			t, err := follow(seen, now, Target{Item: i, Sub: -1}, p.String())
			return t.Item, err
		})
		return at, -1, err
	}
	parent, err := follow(seen, now, Target{Item: item, Sub: -1}, p.String())
	if err != nil {
		return 0, 0, err
	}
	if p.SubLast {
		return parent.Item, len(now[parent.Item].Subtasks), nil
	}
	at, err := place(sub, len(seen[item].Subtasks), func(j int) (int, error) {
		t, err := follow(seen, now, Target{Item: item, Sub: j}, p.String())
		if err == nil && t.Item != parent.Item {
			err = gone(now, seen, Target{Item: item, Sub: j}, p.String()) // moved to another item
		}
		return t.Sub, err
	})
	return parent.Item, at, err
}

// place is where insertion index k of a seen list of n entries (items,
// or one item's subtasks) is now: the index of the entry that was at k,
// or, past the end, one after the entry before it. index finds a seen
// entry's index now.
func place(k, n int, index func(int) (int, error)) (int, error) {
	switch {
	case k < n:
		return index(k)
	case k == 0:
		return 0, nil
	}
	i, err := index(k - 1)
	return i + 1, err
}

// follow finds the entry t of the seen list in the current list now, by
// stable id; one that left the list is a staleError.
func follow(seen, now []todolist.Todo, t Target, typed string) (Target, error) {
	uid, _ := entry(seen, t)
	if uid != "" {
		if item, sub, ok := todolist.FindUID(now, uid); ok && (sub < 0) == (t.Sub < 0) {
			return Target{Item: item, Sub: sub}, nil
		}
	} else if sameEntry(seen, now, t) {
		return t, nil // no stable id (a file another program wrote): the same text in the same place
	}
	return Target{}, gone(now, seen, t, typed)
}

// gone is the refusal of a position whose entry is no longer on the list.
func gone(now, seen []todolist.Todo, t Target, typed string) error {
	_, what := entry(seen, t)
	return &staleError{now: now, msg: fmt.Sprintf("position %s named %q in the list you last saw, which is no longer on the list (%v); "+
		"nothing changed: the list as it is now is above, use its positions", typed, todolist.ShortLine(what, 40), errSeenGone)}
}

// unseen is err, a position out of range of the seen list, when that
// list is not the list now: what it says is true of the list the person
// saw, not of the one now, which the refusal shows.
func unseen(err error, seen, now []todolist.Todo) error {
	if err == nil || sameSlice(seen, now) {
		return err
	}
	return &staleError{now: now, msg: fmt.Sprintf("%v, in the list you last saw (%v); "+
		"nothing changed: the list as it is now is above, use its positions", err, errSeenGone)}
}

// sameSlice reports whether a and b are the same list (seen returned now).
func sameSlice(a, b []todolist.Todo) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// sameLayout reports whether two lists hold the same entries in the same
// places (by stable id, by text for an entry without one), so a position
// means the same entry in both.
func sameLayout(a, b []todolist.Todo) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameEntry(a, b, Target{Item: i, Sub: -1}) || len(a[i].Subtasks) != len(b[i].Subtasks) {
			return false
		}
		for j := range a[i].Subtasks {
			if !sameEntry(a, b, Target{Item: i, Sub: j}) {
				return false
			}
		}
	}
	return true
}

// sameEntry reports whether the entry at t is the same in a and b: the
// same stable id, or without one the same text.
func sameEntry(a, b []todolist.Todo, t Target) bool {
	if t.Item >= len(a) || t.Item >= len(b) {
		return false
	}
	if t.Sub >= len(a[t.Item].Subtasks) || t.Sub >= len(b[t.Item].Subtasks) {
		return false
	}
	u, text := entry(a, t)
	v, other := entry(b, t)
	return u == v && (u != "" || text == other)
}

// entry is the stable id and text of the entry at t of todos (an item,
// or with t.Sub >= 0 one of its subtasks).
func entry(todos []todolist.Todo, t Target) (uid, text string) {
	if t.Sub >= 0 {
		s := todos[t.Item].Subtasks[t.Sub]
		return s.UID, s.Content
	}
	return todos[t.Item].UID, todos[t.Item].Content
}
