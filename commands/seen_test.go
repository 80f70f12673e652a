package commands

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/todostore"
)

// seenEnv is an Env whose shell has shown the person the list as it is
// now, and that records what commands show afterwards, as the shell does.
func seenEnv(t *testing.T, spec string) (*Env, *strings.Builder) {
	t.Helper()
	env, _ := newTestEnv(t)
	var out strings.Builder
	env.Out, env.Err = &out, &out
	if _, _, err := env.Store.Commit(env.SessionID, todolist.ByYou, func(s *todostore.Session) error {
		s.Todos = parseSpec(t, spec)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var seen []todolist.Todo
	known := false
	env.Seen = func() ([]todolist.Todo, bool) { return seen, known }
	env.Shown = func(todos []todolist.Todo) { seen, known = todolist.CloneTodos(todos), true }
	env.Shown(mustLoad(t, env).Todos)
	return env, &out
}

// reorder is another process's change: the list reversed, and a new item
// on top.
func reorder(t *testing.T, env *Env) {
	t.Helper()
	other := todostore.Open(env.Store.Root)
	if _, _, err := other.Commit(env.SessionID, todolist.ByAgent, func(s *todostore.Session) error {
		slices.Reverse(s.Todos)
		s.Todos = append([]todolist.Todo{{Content: "new on top", Status: todolist.Pending}}, s.Todos...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestPositionsResolveAgainstTheSeenList: a position means the entry
// the person saw there, wherever another process moved it since; an
// entry that left the list refuses the command, which shows the list as
// it is and changes nothing. On a list nobody changed, positions are the
// list's own.
func TestPositionsResolveAgainstTheSeenList(t *testing.T) {
	tests := []struct {
		line, want string // want: the list after, as parseSpec writes it
	}{
		{`/todo add 1.last "mine"`, "-new on top;-c;-b|[ ]b1|[ ]b2;-a|[ ]a1|[ ]mine"},
		{`/todo add 2.1 "mine"`, "-new on top;-c;-b|[ ]mine|[ ]b1|[ ]b2;-a|[ ]a1"},
		{`/todo add 2.3 "mine"`, "-new on top;-c;-b|[ ]b1|[ ]b2|[ ]mine;-a|[ ]a1"},
		{`/todo add 1 "mine"`, "-new on top;-c;-b|[ ]b1|[ ]b2;-mine;-a|[ ]a1"},
		{`/todo add 4 "mine"`, "-new on top;-c;-mine;-b|[ ]b1|[ ]b2;-a|[ ]a1"},
		{`/todo add last "mine"`, "-new on top;-c;-b|[ ]b1|[ ]b2;-a|[ ]a1;-mine"},
		{`/todo done 2.1`, "-new on top;-c;>b|[x]b1|[ ]b2;-a|[ ]a1"},
		{`/todo done 1.1`, "-new on top;-c;-b|[ ]b1|[ ]b2;+a|[x]a1"},
		{`/todo delete 3`, "-new on top;-b|[ ]b1|[ ]b2;-a|[ ]a1"},
		{`/todo cancel 1-2`, "-new on top;-c;xb|[ ]b1|[ ]b2;xa|[ ]a1"},
		{`/todo edit 2.2 "renamed"`, "-new on top;-c;-b|[ ]b1|[ ]renamed;-a|[ ]a1"},
		{`/todo move 2.2 2.1`, "-new on top;-c;-b|[ ]b2|[ ]b1;-a|[ ]a1"},
	}
	reg := NewRegistry()
	for _, tc := range tests {
		env, out := seenEnv(t, "-a|[ ]a1;-b|[ ]b1|[ ]b2;-c")
		reorder(t, env)
		if err := reg.Run(env, tc.line); err != nil {
			t.Errorf("%s: %v", tc.line, err)
			continue
		}
		if got, want := specOf(mustLoad(t, env).Todos), tc.want; got != want {
			t.Errorf("%s after a reorder:\n got %s\nwant %s", tc.line, got, want)
		}
		if !strings.Contains(out.String(), "The list had changed since you last saw it; it is now:") {
			t.Errorf("%s: the changed list is not shown:\n%s", tc.line, out.String())
		}
		// The list shown is the one seen now: positions are its own.
		if err := reg.Run(env, "/todo done 1"); err != nil || mustLoad(t, env).Todos[0].Status != todolist.Completed {
			t.Errorf("%s, then /todo done 1 on the list shown: %v", tc.line, err)
		}
	}

	// The entry the person saw is gone: refused, the list shown, nothing
	// changed.
	for _, line := range []string{"/todo done 2.1", `/todo add 2.last "x"`, "/todo delete 2", "/todo done 1-3", `/todo add 2.2 "x"`} {
		env, out := seenEnv(t, "-a|[ ]a1;-b|[ ]b1|[ ]b2;-c")
		other := todostore.Open(env.Store.Root)
		if _, _, err := other.Commit(env.SessionID, todolist.ByAgent, func(s *todostore.Session) error {
			s.Todos = slices.Delete(s.Todos, 1, 2) // b, with b1 and b2
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		before := snapshotStore(t, env.Store.Root)
		err := reg.Run(env, line)
		if !errors.Is(err, errSeenGone) || !strings.Contains(err.Error(), "in the list you last saw, which is no longer on the list") {
			t.Errorf("%s on a list without b: %v", line, err)
		}
		if d := diffSnapshots(before, snapshotStore(t, env.Store.Root)); len(d) > 0 {
			t.Errorf("%s refused but changed %v", line, d)
		}
		if !strings.Contains(out.String(), "1. ○ a") || !strings.Contains(out.String(), "2. ○ c") {
			t.Errorf("%s: the list as it is is not shown:\n%s", line, out.String())
		}
		// Shown, so its positions are the ones now.
		if err := reg.Run(env, "/todo done 2"); err != nil || mustLoad(t, env).Todos[1].Status != todolist.Completed {
			t.Errorf("%s refused, then /todo done 2: %v", line, err)
		}
	}
}

// TestOutOfRangeOfTheSeenList: a position out of range of the list the
// person saw, when another process changed the list since, is refused
// saying that it is the list they saw, and shows the list as it is, whose
// positions then work.
func TestOutOfRangeOfTheSeenList(t *testing.T) {
	reg := NewRegistry()
	env, out := seenEnv(t, "-a|[ ]a1;-b")
	other := todostore.Open(env.Store.Root)
	if _, _, err := other.Commit(env.SessionID, todolist.ByAgent, func(s *todostore.Session) error {
		return todolist.InsertSubtask(s.Todos, 1, 0, todolist.Subtask{Content: "b1"})
	}); err != nil {
		t.Fatal(err)
	}
	before := snapshotStore(t, env.Store.Root)
	err := reg.Run(env, `/todo add 2.2 "x"`)
	want := "position 2.2 out of range: item 2 has no subtasks (2.1 or 2.last adds the first), in the list you last saw"
	if !errors.Is(err, errSeenGone) || !strings.Contains(err.Error(), want) {
		t.Errorf("/todo add 2.2 on a list whose item 2 got a subtask since it was seen: %v\nwant %s", err, want)
	}
	if d := diffSnapshots(before, snapshotStore(t, env.Store.Root)); len(d) > 0 {
		t.Errorf("refused but changed %v", d)
	}
	if !strings.Contains(out.String(), "2.1 [ ] b1") {
		t.Errorf("the list as it is is not shown:\n%s", out.String())
	}
	if err := reg.Run(env, `/todo add 2.2 "x"`); err != nil || specOf(mustLoad(t, env).Todos) != "-a|[ ]a1;-b|[ ]b1|[ ]x" {
		t.Errorf("/todo add 2.2 on the list shown: %v", err)
	}
}

// specOf writes a list as parseSpec reads it.
func specOf(todos []todolist.Todo) string {
	marks := map[todolist.Status]string{todolist.Completed: "+", todolist.InProgress: ">", todolist.Pending: "-", todolist.Cancelled: "x"}
	var items []string
	for _, td := range todos {
		s := marks[td.Status] + td.Content
		for _, st := range td.Subtasks {
			box := "[ ]"
			if st.Status == todolist.Completed {
				box = "[x]"
			}
			s += "|" + box + st.Content
		}
		items = append(items, s)
	}
	return strings.Join(items, ";")
}

// TestChangedListShowsReceipts: the list shown because another process
// changed it carries the receipts /todo show gives.
func TestChangedListShowsReceipts(t *testing.T) {
	env, out := seenEnv(t, "-a;-b")
	uid := mustLoad(t, env).Todos[0].UID
	for _, l := range []todostore.WorkLine{{Sees: true}, {Item: uid, Tool: "Edit", Kind: todostore.WorkEdit, Target: "a.go", OK: true}} {
		if _, err := env.Store.RecordWork(env.SessionID, l); err != nil {
			t.Fatal(err)
		}
	}
	other := todostore.Open(env.Store.Root)
	if _, _, err := other.Commit(env.SessionID, todolist.ByAgent, func(s *todostore.Session) error {
		s.Todos[0].Status = todolist.Completed
		slices.Reverse(s.Todos)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := NewRegistry().Run(env, `/todo add "c"`); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if !strings.Contains(got, "The list had changed since you last saw it") || !strings.Contains(got, "seen: 1 edit") {
		t.Errorf("the changed list is shown without its receipts:\n%s", got)
	}
}
