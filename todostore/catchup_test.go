package todostore

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/todosh/todosh/todolist"
	"github.com/todosh/todosh/todolist/todolisttest"
)

// aheadLine is a line a record carries ahead of its own: change n, by
// you, whose list is items.
func aheadLine(n int, items ...string) todolist.LineAhead {
	todos := todolisttest.List(items...)
	todolist.Normalize(todos)
	return todolist.LineAhead{ChangeRecord: todolist.ChangeRecord{N: n, Hash: hashString(listHash(todos)), By: todolist.ByYou, What: fmt.Sprint("change ", n), PID: 7}, Todos: todos}
}

// catchUp appends, after the history's last line, the lines the session
// file's record carries ahead of its own that the history lacks, then
// the record's own change, however many writers crashed in a row; an
// ahead line that fails its checksum or its order is a missing change,
// and no change number is given twice.
func TestCatchUpLinesAhead(t *testing.T) {
	hist := func(n int, items ...string) *HistoryLine {
		return &HistoryLine{N: n, Todos: todolisttest.List(items...)}
	}
	// file is a session file holding items, written by change n whose
	// record carries ahead; edited makes its list differ from the record.
	file := func(n int, edited bool, ahead []todolist.LineAhead, items ...string) state {
		todos := todolisttest.List(items...)
		todolist.Normalize(todos)
		h := listHash(todos)
		rec := hashString(h)
		if edited {
			rec = "0000000000000000"
		}
		return state{present: true, hash: h, sess: &Session{Todos: todos,
			Change: &todolist.ChangeRecord{N: n, Hash: rec, By: todolist.ByAgent, What: fmt.Sprint("change ", n), Ahead: ahead}}}
	}
	bad := aheadLine(2, "a", "b")
	bad.Hash = "ffffffffffffffff" // the file was edited by hand
	for _, tc := range []struct {
		name string
		last *HistoryLine
		st   state
		want string // each line: n, author, items, and its gap
	}{
		{"history whole", hist(3, "a", "b"), file(3, false, nil, "a", "b"), ""},
		{"one crash", hist(1, "a"), file(2, false, nil, "a", "b"),
			"2 agent [a b]"},
		{"two crashes", hist(1, "a"), file(3, false, []todolist.LineAhead{aheadLine(2, "a", "b")}, "a", "b", "c"),
			"2 you [a b] | 3 agent [a b c]"},
		{"three crashes", hist(1, "a"), file(4, false, []todolist.LineAhead{aheadLine(2, "a", "b"), aheadLine(3, "a", "b", "c")}, "b", "c"),
			"2 you [a b] | 3 you [a b c] | 4 agent [b c]"},
		{"the first already appended", hist(2, "a", "b"), file(4, false, []todolist.LineAhead{aheadLine(2, "a", "b"), aheadLine(3, "a", "b", "c")}, "b", "c"),
			"3 you [a b c] | 4 agent [b c]"},
		{"all appended, the record's too", hist(4, "b", "c"), file(4, false, []todolist.LineAhead{aheadLine(2, "a", "b"), aheadLine(3, "a", "b", "c")}, "b", "c"),
			""},
		{"history past the record", hist(5, "b", "c"), file(3, false, []todolist.LineAhead{aheadLine(2, "a", "b")}, "b", "c"),
			""},
		{"an edited line ahead is missing", hist(1, "a"), file(4, false, []todolist.LineAhead{bad, aheadLine(3, "a", "b", "c")}, "b", "c"),
			"3 you [a b c] gap 2-2 | 4 agent [b c]"},
		{"out of order", hist(1, "a"), file(4, false, []todolist.LineAhead{aheadLine(3, "a", "b", "c"), aheadLine(2, "a", "b")}, "b", "c"),
			"3 you [a b c] gap 2-2 | 4 agent [b c]"},
		{"edited after two crashes", hist(1, "a"), file(3, true, []todolist.LineAhead{aheadLine(2, "a", "b")}, "a", "x"),
			"2 you [a b] | 4 other process [a x] gap 3-3"},
		{"history lost whole", nil, file(3, false, []todolist.LineAhead{aheadLine(2, "a", "b")}, "a", "b", "c"),
			"2 you [a b] gap 1-1 | 3 agent [a b c]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, l := range catchUp(tc.last, tc.st) {
				s := fmt.Sprintf("%d %s [%s]", l.N, l.By, itemTexts(l.Todos))
				if l.Gap != nil {
					s += fmt.Sprintf(" gap %d-%d", l.Gap.From, l.Gap.To)
				}
				if !l.snap {
					s += " (not a snapshot)"
				}
				got = append(got, s)
			}
			if g := strings.Join(got, " | "); g != tc.want {
				t.Errorf("catchUp:\n got %s\nwant %s", g, tc.want)
			}
		})
	}
}

// What a record keeps of the lines ahead of its own (aheadOf) is what
// linesAhead writes again: number, author, words, time, list, revert,
// base, dropped items, writer and checksum.
func TestAheadRoundTrip(t *testing.T) {
	at := time.Date(2026, 11, 26, 16, 0, 0, 0, time.UTC)
	lines := []HistoryLine{
		{N: 4, At: at, By: todolist.ByYou, What: "from the archive: cleared (1 item)", Todos: todolisttest.List("gone:x"), Base: true, PID: 9},
		{N: 5, At: at, By: todolist.ByAgent, What: "reverted change 3", Todos: todolisttest.List("a", "b:>"), Revert: 3, Dropped: todolisttest.List("c"), PID: 9},
		{N: 6, At: at, By: todolist.ByOther, What: "emptied", Todos: nil, PID: 9},
	}
	for i := range lines {
		todolist.Normalize(lines[i].Todos)
	}
	ahead := aheadOf(lines)
	st := state{present: true, sess: &Session{Change: &todolist.ChangeRecord{N: 7, Ahead: ahead}}}
	back := linesAhead(3, st)
	if len(back) != len(lines) {
		t.Fatalf("%d lines ahead came back of %d", len(back), len(lines))
	}
	for i, l := range back {
		w := lines[i]
		if l.N != w.N || !l.At.Equal(w.At) || l.By != w.By || l.What != w.What || l.Revert != w.Revert || l.Base != w.Base || l.PID != w.PID ||
			l.hash != w.hash || !todolist.SameTodos(l.Todos, w.Todos) || !todolist.SameTodos(l.Dropped, w.Dropped) || !l.snap {
			t.Errorf("line %d came back as %+v, want %+v", w.N, l, w)
		}
	}
	if got := linesAhead(5, st); len(got) != 1 || got[0].N != 6 {
		t.Errorf("after a history ending at 5: %q", whats(got))
	}
}

// A line ahead whose list would carry the session file past its limit
// does not stop the change: the oldest lines ahead are left out (a crash
// then loses only those, as missing changes), and the change is written.
func TestLinesAheadOverTheLimit(t *testing.T) {
	root := t.TempDir()
	open := func() *Store {
		s := Open(root) // each writer a fresh process: nothing cached
		s.Now = func() time.Time { return time.Date(2026, 11, 26, 16, 0, 0, 0, time.UTC) }
		return s
	}
	big := strings.Repeat("x", todolist.MaxTextLen-10)
	var todos []todolist.Todo
	for i := 0; i < 11; i++ { // about 600 KB: one more copy is past 1 MiB
		todos = append(todos, todolist.Todo{Content: fmt.Sprint("item ", i), Status: todolist.Pending})
		for j := 0; j < todolist.MaxSubtasks; j++ {
			todos[i].Subtasks = append(todos[i].Subtasks, todolist.Subtask{Content: fmt.Sprintf("%d.%d %s", i, j, big), Status: todolist.Pending})
		}
	}
	if _, err := open().Update("big", func(s *Session) error { s.Todos = todolist.CloneTodos(todos); return nil }); err != nil {
		t.Fatal(err)
	}
	errCrash := errors.New("killed after the rename")
	crash := func(i int) {
		t.Helper()
		s := open()
		s.afterRename = func(id string) {
			if id == "big" {
				panic(errCrash)
			}
		}
		defer func() {
			if r := recover(); r != errCrash {
				t.Fatalf("change %d: %v, want the crash", i, r)
			}
		}()
		if _, err := s.Update("big", func(s *Session) error { return todolist.SetSubtaskStatus(s.Todos, i, 0, todolist.Completed) }); err != nil {
			t.Fatalf("change %d: %v", i, err)
		}
	}
	crash(0)
	crash(1) // its line ahead (change 2, 600 KB) does not fit
	if _, err := open().Update("big", func(s *Session) error { return todolist.SetSubtaskStatus(s.Todos, 2, 0, todolist.Completed) }); err != nil {
		t.Fatal(err)
	}
	lines, err := open().History("big")
	var herr *HistoryError
	if !errors.As(err, &herr) || len(herr.Gaps) != 1 || herr.Gaps[0].From != 2 || herr.Gaps[0].To != 2 {
		t.Fatalf("History: %v, want change 2 missing", err)
	}
	if got := whats(lines); len(lines) != 3 || lines[1].N != 3 || lines[2].N != 4 {
		t.Errorf("history %q", got)
	}
}
