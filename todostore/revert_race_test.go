package todostore

import (
	"errors"
	"strings"
	"testing"

	"github.com/todosh/todosh/todolist"
	"github.com/todosh/todosh/todolist/todolisttest"
)

// TestRevertWhileAnotherWrites is the misleading refusal of /todo revert
// beside processes that add: another Store on the same directory makes a
// change just after the revert (or restore) read the session without the
// lock, deterministically, through the unlockedRead hook. The revert must
// take back the newest change there is once it holds the lock (the other
// writer's), and a restore must still make the list the one asked for;
// before, the session as first read and a history read after it disagreed,
// and the revert said the list was "already as it was" before a change
// the file did not yet hold.
func TestRevertWhileAnotherWrites(t *testing.T) {
	contents := func(todos []todolist.Todo) string { return strings.Join(todolisttest.Texts(todos), ",") }
	for _, tc := range []struct {
		name   string
		before []string // added before, one change each
		op     func(s *Store) (*Session, int, error)
		took   int    // the change taken back (revert)
		want   string // the list after
	}{
		{"revert", []string{"a", "b"}, func(s *Store) (*Session, int, error) {
			sess, took, err := s.Revert("r", todolist.ByYou)
			return sess, took.N, err
		}, 3, "a,b"},
		{"revert of a new session", nil, func(s *Store) (*Session, int, error) {
			sess, took, err := s.Revert("r", todolist.ByYou)
			return sess, took.N, err
		}, 1, ""},
		{"restore", []string{"a", "b"}, func(s *Store) (*Session, int, error) {
			sess, changed, err := s.Restore("r", 2, todolist.ByYou)
			if err == nil && !changed {
				err = errors.New("restore changed nothing")
			}
			return sess, 0, err
		}, 0, "a,b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := testStore(t)
			for _, text := range tc.before {
				if _, err := s.Update("r", addTodo(text)); err != nil {
					t.Fatal(err)
				}
			}
			other := Open(s.Root)
			other.Now = s.Now
			writes := 0
			s.unlockedRead = func(id string) {
				// Once per Store call: the other process adds between
				// this read and the lock.
				writes++
				if _, err := other.Update(id, addTodo("x")); err != nil {
					t.Error(err)
				}
			}
			sess, took, err := tc.op(s)
			if err != nil {
				t.Fatalf("with another writer (%d changes made beside it): %v", writes, err)
			}
			if took != tc.took || contents(sess.Todos) != tc.want {
				t.Errorf("took change %d leaving %q; want %d leaving %q", took, contents(sess.Todos), tc.took, tc.want)
			}
			lines := mustHistory(t, s, "r")
			last := lines[len(lines)-1]
			if contents(last.Todos) != tc.want || last.By != todolist.ByYou {
				t.Errorf("the history ends with %s %q %q", last.By, last.What, contents(last.Todos))
			}
		})
	}
}
