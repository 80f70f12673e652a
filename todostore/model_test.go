package todostore

import (
	"testing"

	"github.com/todosh/todosh/todolist/todolisttest"

	"github.com/todosh/todosh/todolist"
)

func TestArchive(t *testing.T) {
	s := &Session{Todos: todolisttest.Items("a", "b")}
	s.ArchiveTodos("cleared")
	if len(s.Todos) != 0 || s.Todos == nil {
		t.Fatalf("todos after archive = %#v, want empty non-nil", s.Todos)
	}
	if s.note != "cleared 2 items" || len(s.Archive) != 0 {
		t.Fatalf("note = %q, archive = %+v; want the change named and no archive in the file", s.note, s.Archive)
	}
	s.note = ""
	s.ArchiveTodos("empty list is not archived")
	if s.note != "" {
		t.Fatalf("archiving an empty list named a change: %q", s.note)
	}
	s.AppendArchive("dropped by agent", todolisttest.Items("x", "y"))
	if want := `dropped by agent: "x", "y"`; len(s.notes) != 1 || s.notes[0] != want {
		t.Errorf("notes = %q, want %q", s.notes, want)
	}
}

func TestProgress(t *testing.T) {
	s := &Session{}
	if _, _, ok := s.Progress(); ok {
		t.Error("empty list has progress")
	}
	s.Todos = []todolist.Todo{{Status: todolist.Completed}, {Status: todolist.Pending}, {Status: todolist.Cancelled}}
	if d, n, ok := s.Progress(); !ok || d != 2 || n != 3 {
		t.Errorf("Progress = %d/%d %v, want 2/3", d, n, ok)
	}
}
