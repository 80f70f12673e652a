package boardcmd

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"testing"
	"time"

	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/board"
	"github.com/todosh/todosh/board/files"
	"github.com/todosh/todosh/todostore"
)

// TestFollowInOneProcess: in one process (the shell), a linked todo
// cancelled gives the claim back, claimed again it is in progress again,
// and completed it finishes the board item.
func TestFollowInOneProcess(t *testing.T) {
	ctx := context.Background()
	dir, _, err := files.Init(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	fb := files.Open(dir)
	it, _ := board.New("port the lexer", nil, time.Now())
	if err := fb.Add(ctx, it); err != nil {
		t.Fatal(err)
	}
	store := todostore.Open(t.TempDir())
	Follow(store, &Follower{Err: io.Discard})
	host, _ := os.Hostname()
	who := board.Who{Session: "s1", Agent: "person", Host: host}
	link := LinkInto(store, "s1", "", todolist.ByYou)
	claim := func() {
		t.Helper()
		c, err := fb.Claim(ctx, it.ID, who, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if err := link(c, fb.Where()); err != nil {
			t.Fatal(err)
		}
	}
	setStatus := func(st todolist.Status) {
		t.Helper()
		if _, _, err := store.Commit("s1", todolist.ByYou, func(s *todostore.Session) error {
			s.Todos[0].Status = st
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	status := func() board.Status {
		got, _ := fb.Get(ctx, it.ID)
		return got.Status
	}
	claim()
	setStatus(todolist.Cancelled)
	if status() != board.Open {
		t.Fatalf("cancelled on the list: board item is %s, want open", status())
	}
	claim()
	if s, _ := store.Load("s1"); len(s.Todos) != 1 || s.Todos[0].Status != todolist.InProgress {
		t.Fatalf("claimed again: %+v", s.Todos)
	}
	if status() != board.Claimed {
		t.Fatalf("claimed again: board item is %s", status())
	}
	// A command seen to succeed while the todo was in progress is the
	// board item's receipt.
	exit := 0
	if _, err := store.RecordWork("s1", todostore.WorkLine{Tool: "Bash", Kind: "execute", Target: "go test ./lexer", OK: true, Exit: &exit}); err != nil {
		t.Fatal(err)
	}
	setStatus(todolist.Completed)
	if status() != board.Done {
		t.Fatalf("completed on the list: board item is %s, want done", status())
	}
	got, _ := fb.Get(ctx, it.ID)
	var r boardReceipt
	if err := json.Unmarshal(got.Receipt, &r); err != nil || r.Session != "s1" || r.Commands != 1 || r.Last != "go test ./lexer" {
		t.Fatalf("receipt %s (%v), want the session's command", got.Receipt, err)
	}
}
