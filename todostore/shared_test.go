package todostore

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/todosh/todosh/todolist"
)

// cowOp is one change to a list made the way callers make them, through
// the exported mutators; a, b and c pick its item, subtask and value.
type cowOp struct {
	name string
	fn   func(todos []todolist.Todo, a, b, c int) ([]todolist.Todo, error)
}

// cowOps are every exported mutator of a list, and the ways a change
// function builds lists by hand (an item moved, copied, a subtask
// appended, a subtask's text changed after todolist.OwnSubtasks).
var cowOps = []cowOp{
	{"tick", func(l []todolist.Todo, a, b, c int) ([]todolist.Todo, error) {
		st := todolist.Completed
		if c%2 == 0 {
			st = todolist.Pending
		}
		i, j, ok := pickSub(l, a, b)
		if !ok {
			return l, nil
		}
		return l, todolist.SetSubtaskStatus(l, i, j, st)
	}},
	{"status", func(l []todolist.Todo, a, _, c int) ([]todolist.Todo, error) {
		if len(l) == 0 {
			return l, nil
		}
		return l, todolist.SetStatus(l, a%len(l), []todolist.Status{todolist.Pending, todolist.InProgress, todolist.Completed, todolist.Cancelled}[c%4])
	}},
	{"insert subtask", func(l []todolist.Todo, a, b, c int) ([]todolist.Todo, error) {
		if len(l) == 0 {
			return l, nil
		}
		i := a % len(l)
		return l, todolist.InsertSubtask(l, i, b%(len(l[i].Subtasks)+1), todolist.Subtask{Content: fmt.Sprintf("new %d", c)})
	}},
	{"remove subtask", func(l []todolist.Todo, a, b, _ int) ([]todolist.Todo, error) {
		if i, j, ok := pickSub(l, a, b); ok {
			todolist.RemoveSubtask(l, i, j)
		}
		return l, nil
	}},
	{"insert item", func(l []todolist.Todo, a, _, c int) ([]todolist.Todo, error) {
		return todolist.InsertTodo(l, a%(len(l)+1), todolist.Todo{Content: fmt.Sprintf("item %d", c), Subtasks: []todolist.Subtask{{Content: "x"}, {Content: "y"}}})
	}},
	{"remove item", func(l []todolist.Todo, a, _, _ int) ([]todolist.Todo, error) {
		if len(l) == 0 {
			return l, nil
		}
		return todolist.RemoveTodo(l, a%len(l)), nil
	}},
	{"move item", func(l []todolist.Todo, a, b, _ int) ([]todolist.Todo, error) {
		if len(l) > 0 {
			i, j := a%len(l), b%len(l)
			l[i], l[j] = l[j], l[i]
		}
		return l, nil
	}},
	{"edit subtask", func(l []todolist.Todo, a, b, c int) ([]todolist.Todo, error) {
		if i, j, ok := pickSub(l, a, b); ok {
			todolist.OwnSubtasks(&l[i])
			l[i].Subtasks[j].Content = fmt.Sprintf("edited %d", c)
		}
		return l, nil
	}},
	{"append subtask", func(l []todolist.Todo, a, _, c int) ([]todolist.Todo, error) {
		if len(l) == 0 || len(l[a%len(l)].Subtasks) >= todolist.MaxSubtasks {
			return l, nil
		}
		i := a % len(l)
		l[i].Subtasks = append(l[i].Subtasks, todolist.Subtask{Content: fmt.Sprintf("appended %d", c), Status: todolist.Pending})
		return l, nil
	}},
	{"copy item", func(l []todolist.Todo, a, _, _ int) ([]todolist.Todo, error) {
		if len(l) == 0 || len(l) >= todolist.MaxTodos {
			return l, nil
		}
		t := l[a%len(l)] // its subtasks' stable ids are taken: Commit gives new ones
		t.UID = ""
		return append(l, t), nil
	}},
	{"clear ids", func(l []todolist.Todo, _, _, _ int) ([]todolist.Todo, error) {
		todolist.ClearUIDs(l)
		return l, nil
	}},
}

// pickSub picks a subtask of the list from a and b, if there is one.
func pickSub(l []todolist.Todo, a, b int) (int, int, bool) {
	for k := range l {
		i := (a + k) % len(l)
		if n := len(l[i].Subtasks); n > 0 {
			return i, b % n, true
		}
	}
	return 0, 0, false
}

// visible is what a list says, without the stable ids and revisions only
// Commit gives.
func visible(l []todolist.Todo) string {
	var b strings.Builder
	for _, t := range l {
		fmt.Fprintf(&b, "%s %s %q %q|", t.ID, t.Status, t.Content, t.Evidence)
		for _, s := range t.Subtasks {
			fmt.Fprintf(&b, " %s %s %q %q", s.ID, s.Status, s.Content, s.Evidence)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// cowList is a list of three items of three subtasks.
func cowList() []todolist.Todo {
	l := make([]todolist.Todo, 3)
	for i := range l {
		l[i].Content = fmt.Sprintf("item %d", i+1)
		for j := 0; j < 3; j++ {
			l[i].Subtasks = append(l[i].Subtasks, todolist.Subtask{Content: fmt.Sprintf("sub %d.%d", i+1, j+1), Status: todolist.Pending})
		}
	}
	return l
}

// runCOW applies ops to a session through Commit and to a deep copy by
// hand, step by step: both lists must say the same, and neither the
// cache's session before a change nor the list a caller got from the
// change before may change.
func runCOW(t *testing.T, ops []byte) {
	s := memStore(t)
	given, err := s.Update("c", func(x *Session) error { x.Todos = cowList(); return nil })
	if err != nil {
		t.Fatal(err)
	}
	want := todolist.CloneTodos(given.Todos)
	for k := 0; k+3 < len(ops) && k < 4*40; k += 4 {
		op := cowOps[int(ops[k])%len(cowOps)]
		a, b, c := int(ops[k+1]), int(ops[k+2]), int(ops[k+3])
		shared, err := s.ReadShared("c")
		if err != nil {
			t.Fatal(err)
		}
		sharedWas, givenWas := todolist.CloneTodos(shared.Todos), todolist.CloneTodos(given.Todos)
		got, err := s.Update("c", func(x *Session) error {
			l, err := op.fn(x.Todos, a, b, c)
			x.Todos = l
			return err
		})
		byHand, err2 := op.fn(todolist.CloneTodos(want), a, b, c)
		if err2 == nil {
			todolist.Normalize(byHand)
			err2 = todolist.Validate(byHand)
		}
		if (err == nil) != (err2 == nil) {
			t.Fatalf("%s(%d,%d,%d): through Commit %v, by hand %v", op.name, a, b, c, err, err2)
		}
		if !reflect.DeepEqual(shared.Todos, sharedWas) {
			t.Fatalf("%s(%d,%d,%d) changed the cache's session before it:\n%s\nwas\n%s", op.name, a, b, c, visible(shared.Todos), visible(sharedWas))
		}
		if !reflect.DeepEqual(given.Todos, givenWas) {
			t.Fatalf("%s(%d,%d,%d) changed the list the change before gave its caller", op.name, a, b, c)
		}
		if err != nil {
			continue
		}
		if visible(got.Todos) != visible(byHand) {
			t.Fatalf("%s(%d,%d,%d): through Commit\n%s\nby hand\n%s", op.name, a, b, c, visible(got.Todos), visible(byHand))
		}
		again, err := s.Load("c")
		if err != nil || !reflect.DeepEqual(again.Todos, got.Todos) {
			t.Fatalf("%s(%d,%d,%d): the store has another list than its caller got (%v)", op.name, a, b, c, err)
		}
		fresh, err := Open(filepath.Dir(s.Dir)).Load("c") // read from the file, not the cache
		if err != nil || visible(fresh.Todos) != visible(got.Todos) {
			t.Fatalf("%s(%d,%d,%d): the file says another list (%v)", op.name, a, b, c, err)
		}
		given, want = got, byHand
	}
}

// TestMutatorsLeaveSharedLists: every exported mutator, and each way a
// change function builds a list, leaves the cache's session and earlier
// callers' lists (which share subtask arrays, copy on write) unchanged.
func TestMutatorsLeaveSharedLists(t *testing.T) {
	for i, op := range cowOps {
		t.Run(op.name, func(t *testing.T) {
			// The op on each item and subtask in turn, then a tick, so a
			// change after it starts from its result.
			var ops []byte
			for k := 0; k < 4; k++ {
				ops = append(ops, byte(i), byte(k), byte(k+1), byte(k), 0, byte(k), 1, 1)
			}
			runCOW(t, ops)
		})
	}
}

// TestWriteIntoSharedSubtasksCaught: a change function that writes into
// a subtask array without todolist.OwnSubtasks is a bug a test binary stops at,
// before the cache is changed for good.
func TestWriteIntoSharedSubtasksCaught(t *testing.T) {
	s := testStore(t)
	if _, err := s.Update("c", func(x *Session) error { x.Todos = cowList(); return nil }); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "OwnSubtasks") {
			t.Fatalf("a write into shared subtasks: recovered %v, want the copy-on-write panic", r)
		}
	}()
	s.Update("c", func(x *Session) error { x.Todos[1].Subtasks[2].Content = "written in place"; return nil })
}

// FuzzCopyOnWrite runs changes chosen by the input through Commit and by
// hand on deep copies (runCOW): the same lists, and no shared list changed.
// memStore is testStore in a memory file system when the machine has one
// (/dev/shm): FuzzCopyOnWrite makes up to 40 changes an input, and what it
// checks is what the changes share, not their fsyncs, which on a disk
// made one CI run of it last three minutes. Elsewhere it is testStore.
func memStore(t *testing.T) *Store {
	t.Helper()
	dir, err := os.MkdirTemp("/dev/shm", "todosh-cow-")
	if err != nil {
		return testStore(t)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	s := Open(dir)
	s.Now = testStore(t).Now
	return s
}

func FuzzCopyOnWrite(f *testing.F) {
	f.Add([]byte{0, 1, 2, 1, 6, 0, 2, 0, 7, 2, 1, 9, 9, 1, 0, 0, 10, 0, 0, 0, 0, 1, 1, 1})
	f.Add([]byte{4, 0, 0, 5, 2, 3, 1, 7, 3, 1, 1, 0, 8, 2, 0, 3, 5, 1, 0, 0, 1, 2, 0, 2})
	f.Fuzz(func(t *testing.T, ops []byte) { runCOW(t, ops) })
}
