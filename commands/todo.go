package commands

import (
	"errors"
	"fmt"
	"strings"

	"github.com/todosh/todosh/todostore"
)

// OriginPerson marks items and subtasks added with /todo add, so that
// merging an agent's rewritten list keeps them.
const OriginPerson = todostore.OriginPerson

// load reads the current session; a session with no file yet is empty.
func (x *call) load() (*todostore.Session, error) {
	return x.env.Store.LoadOrNew(x.env.SessionID)
}

// update is the only way commands write: fn runs on the freshly read
// session as the person's change (todostore.Store.Commit), and an error
// from it aborts the write; a refused command or one that changes nothing
// writes nothing, not even the store directory.
func (x *call) update(fn func(*todostore.Session) error) (*todostore.Session, error) {
	env := x.env
	sess, _, err := env.Store.Commit(env.SessionID, todostore.ByYou, func(s *todostore.Session) error {
		before := todostore.CloneTodos(s.Todos)
		if err := fn(s); err != nil {
			return err
		}
		if s.Cwd == "" && !todostore.SameTodos(before, s.Todos) {
			s.Cwd = env.Cwd
		}
		return nil
	})
	return sess, err
}

// printList shows the list after a change, once, after an optional
// one-line note of what happened.
func (x *call) printList(note string, sess *todostore.Session) error {
	if note != "" {
		note += "\n"
	}
	return x.print(note + todostore.FormatList(sess.Todos))
}

// onePosition reads the single position argument of delete, done and undo.
func (x *call) onePosition() (Position, error) {
	w, ok, err := x.args.Next()
	if err != nil {
		return Position{}, err
	}
	if !ok {
		return Position{}, fmt.Errorf("missing position (usage: %s POS, e.g. %s; POS is %s)", x.name, x.cmd.example, positionKinds)
	}
	p, err := ParsePosition(w.Value)
	if err != nil {
		return Position{}, err
	}
	return p, x.noMoreArgs()
}

// checkText is todostore.CheckText with the usage in the empty-text error.
func checkText(text, usage string) error {
	if strings.TrimSpace(text) == "" {
		return fmt.Errorf("text is empty (usage: %s)", usage)
	}
	return todostore.CheckText("text", text)
}

func runShow(x *call) error {
	if err := x.noMoreArgs(); err != nil {
		return err
	}
	sess, err := x.load()
	var corrupt *todostore.CorruptError
	if errors.As(err, &corrupt) && x.env.LastGood != nil {
		if last := x.env.LastGood(); last != nil {
			// The person still sees their list; the error says the file
			// is not it.
			x.print("The last good list (the file on disk cannot be used):\n" + todostore.FormatList(last.Todos))
		}
	}
	if err != nil {
		return err
	}
	if len(sess.Todos) == 0 {
		return x.print("Todo list is empty (add an item with /todo add TEXT)\n")
	}
	return x.print(todostore.FormatList(sess.Todos))
}

// runAdd implements /todo add [POS] TEXT. A first word shaped like a
// position is the position, even when out of range (that is an error, not
// text); anything else starts the text.
func runAdd(x *call) error {
	var pos *Position
	if w, ok, err := x.args.Peek(); ok && err == nil {
		if p, err := ParsePosition(w.Raw); err == nil {
			pos = &p
			x.args.Next()
		}
	}
	text, err := x.args.Text()
	if err != nil {
		return err
	}
	if err := checkText(text, `/todo add [POS] TEXT, e.g. /todo add last "write tests"`); err != nil {
		return err
	}
	sess, err := x.update(func(s *todostore.Session) error {
		if pos != nil && pos.HasSub {
			item, sub, err := pos.InsertAt(s.Todos)
			if err != nil {
				return err
			}
			if n := len(s.Todos[item].Subtasks); n >= todostore.MaxSubtasks {
				return fmt.Errorf("todo %d already has %d subtasks, the limit (delete some first)", item+1, n)
			}
			return todostore.InsertSubtask(s.Todos, item, sub, todostore.Subtask{Content: text, Origin: OriginPerson})
		}
		if len(s.Todos) >= todostore.MaxTodos {
			return fmt.Errorf("the list already has %d todos, the limit (delete some, or /todo clear)", len(s.Todos))
		}
		index := len(s.Todos)
		if pos != nil {
			var err error
			if index, _, err = pos.InsertAt(s.Todos); err != nil {
				return err
			}
		}
		todos, err := todostore.InsertTodo(s.Todos, index, todostore.Todo{Content: text, Origin: OriginPerson})
		s.Todos = todos
		return err
	})
	if err != nil {
		return err
	}
	return x.printList("", sess)
}

func runDelete(x *call) error {
	p, err := x.onePosition()
	if err != nil {
		return err
	}
	var gone string
	sess, err := x.update(func(s *todostore.Session) error {
		item, sub, err := p.Target(s.Todos)
		if err != nil {
			return err
		}
		if sub < 0 {
			gone = fmt.Sprintf("Deleted %d. %s", item+1, s.Todos[item].Content)
			if n := len(s.Todos[item].Subtasks); n > 0 {
				gone += fmt.Sprintf(" (with %d subtasks)", n)
			}
			s.Todos = todostore.RemoveTodo(s.Todos, item)
			return nil
		}
		gone = fmt.Sprintf("Deleted %d.%d %s", item+1, sub+1, s.Todos[item].Subtasks[sub].Content)
		todostore.RemoveSubtask(s.Todos, item, sub)
		return nil
	})
	if err != nil {
		return err
	}
	return x.printList(oneLine(gone), sess)
}

func runDone(x *call) error { return setStatus(x, todostore.Completed) }
func runUndo(x *call) error { return setStatus(x, todostore.Pending) }

// setStatus is /todo done and /todo undo: an item's own status, or a
// subtask's tick. Completing an item whose subtasks are open is refused by
// todostore with the subtasks to tick.
func setStatus(x *call, st todostore.Status) error {
	p, err := x.onePosition()
	if err != nil {
		return err
	}
	sess, err := x.update(func(s *todostore.Session) error {
		item, sub, err := p.Target(s.Todos)
		if err != nil {
			return err
		}
		if sub >= 0 {
			return todostore.SetSubtaskStatus(s.Todos, item, sub, st)
		}
		return todostore.SetStatus(s.Todos, item, st)
	})
	if err != nil {
		return err
	}
	return x.printList("", sess)
}

// errNothingToClear stops /todo clear on an empty list before it writes.
var errNothingToClear = errors.New("nothing to clear")

func runClear(x *call) error {
	if err := x.noMoreArgs(); err != nil {
		return err
	}
	now := x.env.now()
	var n int
	sess, err := x.update(func(s *todostore.Session) error {
		if n = len(s.Todos); n == 0 {
			return errNothingToClear
		}
		s.ArchiveTodos("cleared", now)
		return nil
	})
	if errors.Is(err, errNothingToClear) {
		return x.print("Todo list is already empty: nothing to clear\n")
	}
	if err != nil {
		return err
	}
	return x.printList(fmt.Sprintf("Cleared %s (the list stays in this session's history: /todo revert brings it back)", todostore.Plural(n, "todo")), sess)
}
