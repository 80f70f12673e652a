package todostore

import (
	"testing"

	"github.com/todosh/todosh/todolist"
)

// TestStableUIDs: every item and subtask gets a stable id that follows it
// when the list is reordered, is unique in the session and is never given
// again after its entry is removed; revisions count the list's changes and
// stamp the entries that changed.
func TestStableUIDs(t *testing.T) {
	s := Open(t.TempDir())
	update := func(fn func(x *Session)) *Session {
		t.Helper()
		got, err := s.Update("u", func(x *Session) error { fn(x); return nil })
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	sess := update(func(x *Session) {
		x.Todos = []todolist.Todo{{Content: "a", Status: todolist.Pending}, {Content: "b", Status: todolist.Pending,
			Subtasks: []todolist.Subtask{{Content: "b1", Status: todolist.Pending}, {Content: "b2", Status: todolist.Pending}}}}
	})
	uidOf := map[string]string{}
	for _, td := range sess.Todos {
		uidOf[td.Content] = td.UID
		for _, st := range td.Subtasks {
			uidOf[st.Content] = st.UID
		}
	}
	if uidOf["a"] != "t1" || uidOf["b"] != "t2" || uidOf["b1"] != "s3" || uidOf["b2"] != "s4" || sess.Rev != 1 {
		t.Fatalf("first ids %v rev %d", uidOf, sess.Rev)
	}
	// Move b above a, tick b2 and remove a: ids follow their entries.
	sess = update(func(x *Session) { x.Todos[0], x.Todos[1] = x.Todos[1], x.Todos[0] })
	if sess.Todos[0].UID != "t2" || sess.Todos[0].Subtasks[1].UID != "s4" || sess.Todos[0].ID != "1" || sess.Rev != 2 {
		t.Fatalf("after the move: %+v rev %d", sess.Todos, sess.Rev)
	}
	if sess.Todos[0].Rev != 1 || sess.Todos[1].Rev != 1 {
		t.Errorf("a move changes no entry: revs %d %d, want 1 1", sess.Todos[0].Rev, sess.Todos[1].Rev)
	}
	sess = update(func(x *Session) { todolist.SetSubtaskStatus(x.Todos, 0, 1, todolist.Completed) })
	if st := sess.Todos[0].Subtasks; st[1].Rev != 3 || st[0].Rev != 1 || sess.Todos[0].Rev != 3 {
		t.Errorf("tick b2: subtask revs %d %d item %d, want 1 3 3 (its derived status changed)", st[0].Rev, st[1].Rev, sess.Todos[0].Rev)
	}
	sess = update(func(x *Session) { x.Todos = x.Todos[:1] })
	sess = update(func(x *Session) {
		x.Todos = append(x.Todos, todolist.Todo{Content: "a", Status: todolist.Pending}, todolist.Todo{Content: "c", Status: todolist.Pending, UID: "t2"})
	})
	if got := []string{sess.Todos[0].UID, sess.Todos[1].UID, sess.Todos[2].UID}; got[0] != "t2" || got[1] != "t5" || got[2] != "t6" {
		t.Errorf("ids after removing t1 and adding two (one with a taken id) = %q, want t2 t5 t6: never reused, never twice", got)
	}
	// A taken id given in place, in a list whose ids Commit gave (so a
	// change keeping them all need not check them): a new one.
	sess = update(func(x *Session) { x.Todos[2].UID = x.Todos[0].UID })
	if got := []string{sess.Todos[0].UID, sess.Todos[1].UID, sess.Todos[2].UID}; got[0] != "t2" || got[1] != "t5" || got[2] != "t7" || sess.NextUID != 8 {
		t.Errorf("ids after giving t2 twice = %q (next %d), want t2 t5 t7 (next 8)", got, sess.NextUID)
	}
	// An agent's change is its own: the entry's Rev says no one else
	// changed it.
	sess, _, _ = s.Commit("u", todolist.ByAgent, func(x *Session) error { x.Todos[1].Content = "a2"; return nil })
	if sess.Todos[1].Rev != 0 || sess.Todos[2].Rev != 5 || sess.Rev != 6 {
		t.Errorf("after the agent's rename: revs %d %d list %d, want 0 5 6 (giving an id is no change of the list)", sess.Todos[1].Rev, sess.Todos[2].Rev, sess.Rev)
	}
	// Reloaded, the ids are the same.
	again, err := s.Load("u")
	if err != nil || again.Todos[1].UID != "t5" || again.Todos[2].UID != "t7" || again.NextUID != 8 {
		t.Errorf("reloaded: %+v %v", again, err)
	}
}

// TestMarkAgentRead: a change the agent is shown records the revision it
// saw; marking a read of an unchanged list writes the file but no history
// line, and marking it again changes nothing.
func TestMarkAgentRead(t *testing.T) {
	s := Open(t.TempDir())
	if _, err := s.Update("r", func(x *Session) error {
		x.Todos = []todolist.Todo{{Content: "a", Status: todolist.Pending}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	lines, _ := s.History("r")
	before := len(lines)
	sess, changed, err := s.Commit("r", todolist.ByAgent, func(x *Session) error { x.MarkAgentRead(); return nil })
	if err != nil || !changed || sess.AgentRead != 1 || sess.AgentStale() {
		t.Fatalf("mark read: %v %v %+v", changed, err, sess)
	}
	if lines, _ := s.History("r"); len(lines) != before {
		t.Errorf("a read added %d history lines", len(lines)-before)
	}
	if _, changed, _ := s.Commit("r", todolist.ByAgent, func(x *Session) error { x.MarkAgentRead(); return nil }); changed {
		t.Errorf("reading an unchanged list again wrote the file")
	}
	sess, _ = s.Update("r", func(x *Session) error { x.Todos[0].Content = "b"; return nil })
	if !sess.AgentStale() || sess.Rev != 2 || sess.AgentRead != 1 {
		t.Errorf("after the person's edit: stale %v rev %d read %d", sess.AgentStale(), sess.Rev, sess.AgentRead)
	}
	sess, _, _ = s.Commit("r", todolist.ByAgent, func(x *Session) error { x.Todos[0].Status = todolist.Completed; x.MarkAgentRead(); return nil })
	if sess.AgentStale() || sess.AgentRead != 3 {
		t.Errorf("a change the agent is shown: read %d rev %d", sess.AgentRead, sess.Rev)
	}
}

// TestClearUIDs: a list copied from another session gets this session's
// ids, none of the other's.
func TestClearUIDs(t *testing.T) {
	s := Open(t.TempDir())
	s.Update("a", func(x *Session) error {
		x.Todos = []todolist.Todo{{Content: "a1", Status: todolist.Pending}, {Content: "a2", Status: todolist.Pending}}
		return nil
	})
	s.Update("a", func(x *Session) error { x.Todos = x.Todos[:1]; return nil }) // t2 removed
	other, _ := s.Update("b", func(x *Session) error {
		x.Todos = []todolist.Todo{{Content: "b0", Status: todolist.Pending}, {Content: "b1", Status: todolist.Pending}}
		return nil
	})
	got, _ := s.Update("a", func(x *Session) error {
		x.Todos = todolist.CloneTodos(other.Todos)
		todolist.ClearUIDs(x.Todos)
		return nil
	})
	if got.Todos[0].UID != "t3" || got.Todos[1].UID != "t4" {
		t.Errorf("loaded ids %q %q, want t3 t4 (t2 was a removed item of this session)", got.Todos[0].UID, got.Todos[1].UID)
	}
}
