package commands

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/todosh/todosh/todolist"
	"github.com/todosh/todosh/todoview"

	"github.com/todosh/todosh/todostore"
)

// OriginPerson marks items and subtasks added with /todo add, so that
// merging an agent's rewritten list keeps them.
const OriginPerson = todolist.OriginPerson

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
	sess, _, err := env.Store.Commit(env.SessionID, todolist.ByYou, func(s *todostore.Session) error {
		before := todolist.CloneTodos(s.Todos)
		x.before = before
		if x.env.Seen != nil {
			seen, ok := x.env.Seen()
			x.unseen, x.seenList = ok && !sameLayout(seen, before), seen
		}
		if err := fn(s); err != nil {
			return err
		}
		if s.Cwd == "" && !todolist.SameTodos(before, s.Todos) {
			s.Cwd = env.Cwd
		}
		return nil
	})
	var stale *staleError
	if errors.As(err, &stale) {
		// Refused: the person is shown the list as it is, whose
		// positions they can use now.
		x.showList(stale.now)
	}
	return sess, err
}

// showList prints a whole list and tells the shell it was shown.
func (x *call) showList(todos []todolist.Todo) error {
	x.shown(todos)
	if len(todos) == 0 {
		return x.print("Todo list is empty (add an item with /todo add TEXT)\n")
	}
	return x.print(todoview.FormatListSeen(todos, x.env.width(), x.work()))
}

// shown tells the shell (Env.Shown) that the person was shown todos.
func (x *call) shown(todos []todolist.Todo) {
	if x.env.Shown != nil {
		x.env.Shown(todos)
	}
}

// printList says in one line what a command changed and the progress
// after it (`✓ 2 "Implement the parser" — 2/3 done`): note when given,
// else the change from the list update last read to sess. Every command
// that writes the list ends with it; /todo show prints the whole list.
// Nothing is printed with --quiet.
func (x *call) printList(note string, sess *todostore.Session) error {
	return x.printChange(note, todolist.Diff(x.before, sess.Todos), sess)
}

// printChange is printList with the change already computed, for a
// command that knows more of it than the lists say (which way a swap went).
func (x *call) printChange(note string, c todolist.ListChange, sess *todostore.Session) error {
	x.shown(sess.Todos) // the person knows what they did, also with --quiet
	if x.env.Quiet {
		return nil
	}
	line := c.Line()
	switch {
	case note != "":
		line = note + " — " + todolist.ProgressText(sess.Todos)
	case line == "":
		line = "list unchanged — " + todolist.ProgressText(sess.Todos)
	}
	if err := x.printFit(todolist.DisplayLine(line) + "\n"); err != nil || !x.unseen {
		return err
	}
	// Another process changed the list since the person last saw it: its
	// positions are not those they knew, so they are shown the list.
	return x.print("The list had changed since you last saw it; it is now:\n" + todoview.FormatListSeen(sess.Todos, x.env.width(), x.work()))
}

// oneSelection reads the single position argument of delete, done,
// undo, start and cancel: a position, a range or all.
func (x *call) oneSelection() (Selection, error) {
	w, ok, err := x.args.Next()
	if err != nil {
		return Selection{}, err
	}
	if !ok {
		return Selection{}, fmt.Errorf("missing position (usage: %s POS, e.g. %s; POS is %s, a range N-M or N.A-N.B, or all)", x.name, x.example(), positionKinds)
	}
	sel, err := ParseSelection(w.Value)
	if err != nil {
		return Selection{}, err
	}
	return sel, x.noMoreArgs()
}

// checkText is todolist.CheckText with the usage in the empty-text error.
func checkText(text, usage string) error {
	if strings.TrimSpace(text) == "" {
		return fmt.Errorf("text is empty (usage: %s)", usage)
	}
	return todolist.CheckText("text", text)
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
			x.print("The last good list (the file on disk cannot be used):\n" + todoview.FormatListSeen(last.Todos, x.env.width(), x.work()))
		}
	}
	if err != nil {
		return err
	}
	return x.showList(sess.Todos)
}

// runAdd implements /todo add [POS] TEXT. A first word shaped like a
// position is the position, even when out of range (that is an error, not
// text); a first word that looks like a mistyped one ("1.2.3", "-1",
// "2-4") is refused; anything else, and any quoted text, starts the text.
func runAdd(x *call) error {
	var pos *Position
	if w, ok, err := x.args.Peek(); ok && err == nil {
		p, err := ParsePosition(w.Raw)
		switch {
		case err == nil:
			pos = &p
			x.args.Next()
		case looksLikePosition(w.Raw):
			return mistypedPosition(w.Raw, x.args.Rest())
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
			item, sub, err := x.insertAt(*pos, s.Todos)
			if err != nil {
				return err
			}
			if n := len(s.Todos[item].Subtasks); n >= todolist.MaxSubtasks {
				return fmt.Errorf("todo %d already has %d subtasks, the limit (delete some first)", item+1, n)
			}
			return todolist.InsertSubtask(s.Todos, item, sub, todolist.Subtask{Content: text, Origin: OriginPerson})
		}
		if len(s.Todos) >= todolist.MaxTodos {
			return fmt.Errorf("the list already has %d todos, the limit (delete some, or /todo clear)", len(s.Todos))
		}
		index := len(s.Todos)
		if pos != nil {
			var err error
			if index, _, err = x.insertAt(*pos, s.Todos); err != nil {
				return err
			}
		}
		todos, err := todolist.InsertTodo(s.Todos, index, todolist.Todo{Content: text, Origin: OriginPerson})
		s.Todos = todos
		return err
	})
	if err != nil {
		return err
	}
	return x.printList("", sess)
}

// mistypedPosition is the error for a first word of /todo add that looks
// like a position but is none: it shows how to add the line as text.
func mistypedPosition(word, line string) error {
	kind := "not a position"
	if IsSelectionForm(word) {
		kind = "a range, not a position for add"
	}
	example := `"` + line + `"`
	switch {
	case utf8.RuneCountInString(line) > 40:
		example = `"` + word + ` ..."`
	case strings.Contains(line, `"`):
		example = "'" + line + "'"
		if strings.Contains(line, "'") {
			example = `"` + word + ` ..."`
		}
	}
	return fmt.Errorf("%q is %s (%s); to add text that starts with it, quote the text: /todo add %s", word, kind, positionForms, example)
}

// runDelete removes the selected items (with their subtasks) or
// subtasks, all in one update.
func runDelete(x *call) error {
	sel, err := x.oneSelection()
	if err != nil {
		return err
	}
	gone := ""
	sess, err := x.update(func(s *todostore.Session) error {
		targets, err := x.targets(sel, s.Todos)
		if err != nil {
			return err
		}
		if len(targets) > 1 || !sel.Single() {
			// A range is counted; one item or subtask is named by the
			// change line printList derives.
			gone = deletedNote(sel, targets)
		}
		for i := len(targets) - 1; i >= 0; i-- { // last first: indexes stay valid
			t := targets[i]
			if t.Sub < 0 {
				s.Todos = todolist.RemoveTodo(s.Todos, t.Item)
			} else {
				todolist.RemoveSubtask(s.Todos, t.Item, t.Sub)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return x.printList(gone, sess)
}

// deletedNote is the line /todo delete prints for a range or all: the
// count of what went.
func deletedNote(sel Selection, targets []Target) string {
	what := "todo"
	if targets[0].Sub >= 0 {
		what = "subtask"
	}
	return fmt.Sprintf("Deleted %s (%s)", todolist.Plural(len(targets), what), sel)
}

// statusOp is what done, undo, start or cancel does to one item
// (sub == -1) or subtask, under the model's rules; an error refuses the
// whole command.
type statusOp func(todos []todolist.Todo, item, sub int) error

func runDone(x *call) error   { return changeStatus(x, markDone) }
func runUndo(x *call) error   { return changeStatus(x, markPending) }
func runStart(x *call) error  { return changeStatus(x, markStarted) }
func runCancel(x *call) error { return changeStatus(x, markCancelled) }

// markDone completes an item or ticks a subtask. Completing an item whose
// subtasks are open is refused by todolist with the subtasks to tick.
func markDone(todos []todolist.Todo, item, sub int) error {
	if sub >= 0 {
		return todolist.SetSubtaskStatus(todos, item, sub, todolist.Completed)
	}
	return todolist.SetStatus(todos, item, todolist.Completed)
}

// markPending reopens an item (completed, in progress or cancelled) or
// unticks a subtask. An item whose subtasks are ticked is refused: untick
// them (a subtask range does it in one command).
func markPending(todos []todolist.Todo, item, sub int) error {
	if sub >= 0 {
		return todolist.SetSubtaskStatus(todos, item, sub, todolist.Pending)
	}
	return todolist.SetStatus(todos, item, todolist.Pending)
}

// markStarted puts an item in progress, even a completed or cancelled
// one, as llxprt-code's /todo set does. Subtasks are pending or completed
// only, so starting a subtask starts its item and leaves the subtask
// open: a ticked subtask is unticked, since work on it starts again. An
// item whose subtasks are all ticked is complete by the derived-status
// rule and cannot be started without unticking one.
func markStarted(todos []todolist.Todo, item, sub int) error {
	if sub >= 0 {
		if err := todolist.SetSubtaskStatus(todos, item, sub, todolist.Pending); err != nil {
			return err
		}
	} else if t := todos[item]; len(t.Subtasks) > 0 && t.DoneSubtasks() == len(t.Subtasks) {
		return fmt.Errorf("todo %d has all its subtasks ticked: start one of them instead (e.g. /todo start %d.%d; its status follows its subtasks)", item+1, item+1, len(t.Subtasks))
	}
	return todolist.SetStatus(todos, item, todolist.InProgress)
}

// markCancelled cancels an item; undo reopens it. Subtasks have no
// cancelled state.
func markCancelled(todos []todolist.Todo, item, sub int) error {
	if sub >= 0 {
		return fmt.Errorf("subtask %d.%d cannot be cancelled, subtasks are pending or completed (delete it with /todo delete %d.%d, or cancel todo %d)", item+1, sub+1, item+1, sub+1, item+1)
	}
	return todolist.SetStatus(todos, item, todolist.Cancelled)
}

// changeStatus applies op to every selected item or subtask in one
// update: if any of them is refused, none changes.
func changeStatus(x *call, op statusOp) error {
	sel, err := x.oneSelection()
	if err != nil {
		return err
	}
	sess, err := x.update(func(s *todostore.Session) error {
		targets, err := x.targets(sel, s.Todos)
		if err != nil {
			return err
		}
		for _, t := range targets {
			if err := op(s.Todos, t.Item, t.Sub); err != nil {
				return err
			}
		}
		return nil
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
	var n int
	sess, err := x.update(func(s *todostore.Session) error {
		if n = len(s.Todos); n == 0 {
			return errNothingToClear
		}
		s.ArchiveTodos("cleared")
		return nil
	})
	if errors.Is(err, errNothingToClear) {
		return x.print("Todo list is already empty: nothing to clear\n")
	}
	if err != nil {
		return err
	}
	return x.printList(fmt.Sprintf("Cleared %s (the list stays in this session's history: /todo revert brings it back)", todolist.Plural(n, "todo")), sess)
}

// runEdit implements /todo edit POS TEXT: only the text changes.
func runEdit(x *call) error {
	w, ok, err := x.args.Next()
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("missing position (usage: /todo edit POS TEXT, e.g. %s; POS is %s)", x.cmd.example, positionKinds)
	}
	p, err := ParsePosition(w.Value)
	if err != nil {
		return err
	}
	text, err := x.args.Text()
	if err != nil {
		return err
	}
	if err := checkText(text, "/todo edit POS TEXT, e.g. "+x.cmd.example); err != nil {
		return err
	}
	sess, err := x.update(func(s *todostore.Session) error {
		item, sub, err := x.target(p, s.Todos)
		if err != nil {
			return err
		}
		if sub >= 0 {
			todolist.OwnSubtasks(&s.Todos[item]) // shared with the store's cache (copy on write)
			s.Todos[item].Subtasks[sub].Content = text
		} else {
			s.Todos[item].Content = text
		}
		return nil
	})
	if err != nil {
		return err
	}
	return x.printList("", sess)
}

// runMove implements /todo move POS TO: an item to item position TO, or a
// subtask to subtask position TO within its item.
func runMove(x *call) error {
	var pos [2]Position
	for i, what := range []string{"position", "destination"} {
		w, ok, err := x.args.Next()
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("missing %s (usage: /todo move POS TO, e.g. %s)", what, x.cmd.example)
		}
		if pos[i], err = ParsePosition(w.Value); err != nil {
			return err
		}
	}
	if err := x.noMoreArgs(); err != nil {
		return err
	}
	from, to := pos[0], pos[1]
	var moved [2]todolist.Pos
	sess, err := x.update(func(s *todostore.Session) error {
		item, sub, err := x.target(from, s.Todos)
		if err != nil {
			return err
		}
		dItem, dSub, err := x.target(to, s.Todos)
		if err != nil {
			return err
		}
		switch {
		case sub < 0 && dSub >= 0:
			return fmt.Errorf("%s is an item: move it to an item position (N or last), not %s", from, to)
		case sub >= 0 && (dSub < 0 || dItem != item):
			return fmt.Errorf("a subtask moves within its item: move %s to %d.M or %d.last, not %s", from, item+1, item+1, to)
		case sub < 0:
			moved = [2]todolist.Pos{{Item: item, Sub: -1}, {Item: dItem, Sub: -1}}
			s.Todos = moveOne(s.Todos, item, dItem)
			// Two neighbours swapped read the same either way round: the
			// words say which one the person moved.
			s.Note(fmt.Sprintf("moved %d to %d", item+1, dItem+1))
		default:
			moved = [2]todolist.Pos{{Item: item, Sub: sub}, {Item: item, Sub: dSub}}
			s.Todos[item].Subtasks = moveOne(s.Todos[item].Subtasks, sub, dSub)
			s.Note(fmt.Sprintf("moved %d.%d to %d.%d", item+1, sub+1, item+1, dSub+1))
		}
		return nil
	})
	if err != nil {
		return err
	}
	// Two neighbours swapped: the line too names the one the person moved.
	return x.printChange("", todolist.Diff(x.before, sess.Todos).Oriented(sess.Todos, moved[0], moved[1]), sess)
}
