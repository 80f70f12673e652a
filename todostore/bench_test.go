package todostore

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/todosh/todosh/todolist/todolisttest"

	"github.com/todosh/todosh/internal/testenv"
	"github.com/todosh/todosh/todolist"
)

// BenchmarkUpdate measures one durable change to a 50-item list: lock,
// read, decode, add an item (dropping the oldest so the list stays at 50),
// encode, write a temp file, fsync, rename, fsync the directory.
func BenchmarkUpdate(b *testing.B) {
	s := testStore(b)
	if _, err := s.Update("bench", func(sess *Session) error {
		for i := 0; i < 50; i++ {
			sess.Todos = append(sess.Todos, todolist.Todo{Content: fmt.Sprintf("item %d with some typical text", i), Status: todolist.Pending})
		}
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := s.Update("bench", func(sess *Session) error {
			var err error
			sess.Todos, err = todolist.InsertTodo(todolist.RemoveTodo(sess.Todos, 0), 49, todolist.Todo{Content: fmt.Sprintf("added %d", i)})
			return err
		}); err != nil {
			b.Fatal(err)
		}
	}
}

// makeSessions writes n small session files with distinct modification
// times directly (not through Update, which would take minutes of fsync).
func makeSessions(b *testing.B, s *Store, n int) {
	b.Helper()
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		b.Fatal(err)
	}
	base := time.Now().Add(-time.Duration(n) * time.Minute)
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("20261121-%06d-%04x", i, i)
		data, err := Encode(&Session{Version: 1, Session: id, Todos: todolisttest.Items("first", "second")})
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
		// Every session written by Commit has its history next to it.
		if err := os.WriteFile(s.SessionHistoryPath(id), nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	// Flush the new files now, or their writeback stalls the stats being
	// measured (seen as 10x slower, erratic runs).
	testenv.SyncDisks()
}

// BenchmarkList10000 measures Store.List over 10 000 session files: read
// the directory, stat each entry, sort by modification time.
func BenchmarkList10000(b *testing.B) {
	s := testStore(b)
	makeSessions(b, s, 10000)
	b.ResetTimer()
	for b.Loop() {
		entries, err := s.List()
		if err != nil || len(entries) != 10000 {
			b.Fatalf("List = %d entries, %v", len(entries), err)
		}
	}
}

// BenchmarkChange10 is one change (a status toggle) to a 10-item list,
// with a history of one line against a full one (MaxHistoryLines lines of
// the same list; goal: within 1.2x). The two stores take turns within one
// loop, so a change in the machine's load hits both alike; the figures are
// the mean of each and their ratio. A full history is never read whole: a
// change reads its last line and the first line's number, then appends;
// the full case includes the cap's rewrite every MaxHistoryLines/2
// changes. Run it with TMPDIR=/dev/shm to see the CPU cost without the
// disk's fsyncs.
func BenchmarkChange10(b *testing.B) {
	type side struct {
		s     *Store
		full  bool
		spent time.Duration
	}
	sides := []*side{{full: false}, {full: true}}
	for _, sd := range sides {
		sd.s = testStore(b)
		if _, err := sd.s.Update("bench", func(sess *Session) error {
			for i := 0; i < 10; i++ {
				sess.Todos = append(sess.Todos, todolist.Todo{Content: fmt.Sprintf("item %d with some typical text", i), Status: todolist.Pending})
			}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
		if sd.full {
			last, _ := sd.s.LastChange("bench")
			var buf []byte
			for n := 1; n <= MaxHistoryLines; n++ {
				l := last
				l.N = n
				data, _ := encodeHistoryLine(l)
				buf = append(buf, data...)
			}
			if err := os.WriteFile(sd.s.SessionHistoryPath("bench"), buf, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		st := todolist.Completed
		if i%2 == 1 {
			st = todolist.Pending
		}
		for _, sd := range sides {
			t0 := time.Now()
			if _, changed, err := sd.s.Commit("bench", todolist.ByYou, func(sess *Session) error { return todolist.SetStatus(sess.Todos, 0, st) }); err != nil || !changed {
				b.Fatal(changed, err)
			}
			sd.spent += time.Since(t0)
			if !sd.full { // keep it at one line
				last, _ := sd.s.LastChange("bench")
				data, _ := encodeHistoryLine(last)
				os.WriteFile(sd.s.SessionHistoryPath("bench"), data, 0o644)
			}
		}
	}
	one, full := sides[0].spent, sides[1].spent
	b.ReportMetric(float64(one.Microseconds())/float64(b.N), "µs/change-history=1")
	b.ReportMetric(float64(full.Microseconds())/float64(b.N), "µs/change-history=full")
	b.ReportMetric(float64(full)/float64(one), "ratio")
}

// BenchmarkAddAfterOtherWriter is an add to a 99-item list whose session
// file another program rewrote just before (no change record the history
// explains), over a history of 10 or 1,900 lines: the writer reads the
// history's list from its last snapshot (readChainEnd), so both cost the
// same. It once read the whole history at each such add (BenchmarkAdd100
// in commands grew with its own history: 4, 10 and 52 ms at 5, 20 and 100
// ops).
func BenchmarkAddAfterOtherWriter(b *testing.B) {
	for _, lines := range []int{10, 1900} {
		b.Run(fmt.Sprintf("history=%d", lines), func(b *testing.B) {
			s := testStore(b)
			todos := make([]todolist.Todo, 99)
			for i := range todos {
				todos[i] = todolist.Todo{Content: fmt.Sprintf("item %d with some ordinary text in it", i+1), Status: todolist.Pending}
			}
			todolist.Normalize(todos)
			var hist []byte
			at, prev := lineChain{}, []todolist.Todo{}
			for k := 1; k <= lines; k++ {
				next := todolist.CloneTodos(todos)
				next[k%99].Status = todolist.Completed
				var err error
				if hist, at, err = encodeLinesTo(hist, at, prev, []HistoryLine{{N: k, By: todolist.ByYou, What: "completed", Todos: next}}, todolist.MaxFileSize); err != nil {
					b.Fatal(err)
				}
				prev = next
			}
			if err := os.MkdirAll(s.Dir, 0o700); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(s.SessionHistoryPath("bench"), hist, 0o600); err != nil {
				b.Fatal(err)
			}
			orig, err := Encode(&Session{Version: todolist.FormatVersion, Session: "bench", Todos: todos})
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				b.StopTimer()
				writeRaw(b, s, "bench", orig) // another program's write
				b.StartTimer()
				if _, err := s.Update("bench", addTodo("the hundredth item")); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRevertAfterOtherWriter is /todo revert of another process's
// add to a 50-item list with 500 changes behind it (50 adds, then items
// completed and reopened; two lines more each op). A revert reads the
// history whole once, under the lock; it read it twice while it also
// decided without the lock (apply.go).
func BenchmarkRevertAfterOtherWriter(b *testing.B) {
	s := testStore(b)
	for i := range 500 {
		fn := addTodo(fmt.Sprintf("item %d with some ordinary text in it", i))
		if i >= 50 {
			status := []todolist.Status{todolist.Completed, todolist.Pending}[i/50%2]
			fn = func(sess *Session) error { return todolist.SetStatus(sess.Todos, i%50, status) }
		}
		if _, err := s.Update("bench", fn); err != nil {
			b.Fatal(err)
		}
	}
	other := Open(s.Root)
	var read int64
	for b.Loop() {
		b.StopTimer()
		if _, err := other.Update("bench", addTodo("another process's item")); err != nil {
			b.Fatal(err)
		}
		from := historyRead.Load()
		b.StartTimer()
		if _, _, err := s.Revert("bench", todolist.ByYou); err != nil {
			b.Fatal(err)
		}
		read += historyRead.Load() - from
	}
	b.ReportMetric(float64(read)/float64(b.N), "history-bytes/revert")
}

// BenchmarkItemTexts: what a stop or turn pays to know the item texts of
// the history before the person's prompt (continuation.Turn.Known), the
// history read whole, at 1,000 changes of a 20-item list. It is paid only
// when the agent wrote an item completed, never seen open, without a
// receipt.
func BenchmarkItemTexts(b *testing.B) {
	s := testStore(b)
	if _, err := s.Update("bench", func(sess *Session) error {
		for i := range 20 {
			sess.Todos = append(sess.Todos, todolist.Todo{Content: fmt.Sprintf("item %d", i), Status: todolist.Pending})
		}
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	for i := range 1000 {
		if _, err := s.Update("bench", func(sess *Session) error {
			t := &sess.Todos[i%20]
			t.Status = map[bool]todolist.Status{true: todolist.Completed, false: todolist.Pending}[t.Status != todolist.Completed]
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
	cur, err := s.Load("bench")
	if err != nil {
		b.Fatal(err)
	}
	key := func(s string) string { return s }
	for b.Loop() {
		if texts := s.ItemTexts("bench", cur.Change.N, key); len(texts) != 20 {
			b.Fatalf("%d texts, want 20", len(texts))
		}
	}
}
