package foreignlists

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/todosh/todosh/internal/testenv"
	"github.com/todosh/todosh/todolist"
	"github.com/todosh/todosh/todostore"
)

// makeSessions writes n small session files with distinct modification
// times directly (not through todostore's Update, which would take minutes
// of fsync).
func makeSessions(b *testing.B, s *todostore.Store, n int) {
	b.Helper()
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		b.Fatal(err)
	}
	base := time.Now().Add(-time.Duration(n) * time.Minute)
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("20261121-%06d-%04x", i, i)
		data, err := todostore.Encode(&todostore.Session{Version: 1, Session: id, Todos: items("first", "second")})
		if err != nil {
			b.Fatal(err)
		}
		p := s.Path(id)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			b.Fatal(err)
		}
		at := base.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(p, at, at); err != nil {
			b.Fatal(err)
		}
		// Every session written by todostore's Commit has its history next to it.
		if err := os.WriteFile(s.SessionHistoryPath(id), nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	// Flush the new files now, or their writeback stalls the stats being
	// measured (seen as 10x slower, erratic runs).
	testenv.SyncDisks()
}

func texts(todos []todolist.Todo) []string {
	var out []string
	for _, t := range todos {
		out = append(out, t.Content)
	}
	return out
}

// items builds a list of pending todos with the given texts.
func items(texts ...string) []todolist.Todo {
	out := make([]todolist.Todo, len(texts))
	for i, s := range texts {
		out[i] = todolist.Todo{Content: s, Status: todolist.Pending}
	}
	return out
}
