package todostore

import (
	"fmt"
	"os"
	"testing"

	"github.com/todosh/todosh/todolist"
)

// TestAddReadsTheHistoryChainOnly: a change to a session file another
// program rewrote reads the history from its last snapshot, not whole:
// it reads as much with 1,900 lines as with 200 (both end in a chain of
// snapshotEvery lines; BenchmarkAdd100 cost 4,
// 10 and 52 ms at 5, 20 and 100 ops when it read the whole file).
func TestAddReadsTheHistoryChainOnly(t *testing.T) {
	read := map[int]int64{}
	for _, lines := range []int{200, 1900} {
		s := testStore(t)
		var hist []byte
		at, prev := lineChain{}, []todolist.Todo{}
		todos := []todolist.Todo{}
		for k := 1; k <= lines; k++ {
			todos = append(todolist.CloneTodos(todos), todolist.Todo{Content: fmt.Sprintf("item %d", k), Status: todolist.Pending})
			if len(todos) > 50 {
				todos = todos[1:]
			}
			todolist.Normalize(todos)
			var err error
			hist, at, err = encodeLinesTo(hist, at, prev, []HistoryLine{{N: k, By: todolist.ByYou, What: "added", Todos: todolist.CloneTodos(todos)}}, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			prev = todos
		}
		if err := os.MkdirAll(s.Dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(s.SessionHistoryPath("b"), hist, 0o600); err != nil {
			t.Fatal(err)
		}
		// The session file as another program wrote it: no change record.
		data, err := Encode(&Session{Version: todolist.FormatVersion, Session: "b", Todos: todolist.CloneTodos(todos)})
		if err != nil {
			t.Fatal(err)
		}
		writeRaw(t, s, "b", data)
		start := historyRead.Load()
		if _, err := s.Update("b", addTodo("one more")); err != nil {
			t.Fatal(err)
		}
		read[lines] = historyRead.Load() - start
		if got, err := s.History("b"); err != nil || got[len(got)-1].N != lines+1 {
			t.Fatalf("%d lines: history after the add: %v", lines, err)
		}
	}
	if read[1900] > read[200]+64<<10 {
		t.Errorf("an add after another program's write read %d bytes of a 1,900-line history and %d of a 200-line one: it reads the whole file", read[1900], read[200])
	}
}
