package todostore

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/todosh/todosh/todolist/todolisttest"

	"github.com/todosh/todosh/todolist"
)

func TestParseHistory(t *testing.T) {
	good := func(n int, todos ...string) string {
		b, err := encodeHistoryLine(HistoryLine{N: n, By: todolist.ByYou, What: "x", Todos: todolisttest.List(todos...)})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	tests := []struct {
		name  string
		data  string
		lines []int
		bad   []int
	}{
		{"empty", "", nil, nil},
		{"two", good(1, "a") + good(2, "a", "b"), []int{1, 2}, nil},
		{"torn last line", good(1, "a") + strings.TrimSuffix(good(2, "a", "b"), "\n")[:20], []int{1}, nil},
		{"garbage middle", good(1, "a") + "garbage\n" + good(2), []int{1, 2}, []int{2}},
		{"out of order", good(2, "a") + good(1, "a"), []int{2}, []int{2}},
		{"bad todo", good(1) + `{"n":2,"todos":[{"content":"","status":"pending"}]}` + "\n", []int{1}, []int{2}},
		{"blank lines", "\n" + good(1) + "\n", []int{1}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines, bad := ParseHistory([]byte(tt.data))
			var ns, bs []int
			for _, l := range lines {
				ns = append(ns, l.N)
			}
			for _, b := range bad {
				bs = append(bs, b.Line)
			}
			if fmt.Sprint(ns) != fmt.Sprint(tt.lines) || fmt.Sprint(bs) != fmt.Sprint(tt.bad) {
				t.Errorf("lines %v bad %v; want %v, %v", ns, bs, tt.lines, tt.bad)
			}
		})
	}
}

// FuzzHistoryLines checks that the history reader never panics, that every
// line it accepts is valid and written back reads the same, and that a
// torn copy never yields more lines than the whole.
func FuzzHistoryLines(f *testing.F) {
	f.Add([]byte(`{"n":1,"at":"2026-11-23T10:00:00Z","by":"you","what":"added 1 \"a\"","todos":[{"id":"1","content":"a","status":"pending"}]}` + "\n"))
	f.Add([]byte("{\"n\":3,\"todos\":[]}\n{\"n\":2}\n{\"n\":4,\"todos\":null,\"revert\":3}\n{"))
	f.Add([]byte("garbage\n\n{}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lines, _ := ParseHistory(data)
		var out []byte
		for i, l := range lines {
			if err := todolist.Validate(l.Todos); err != nil || l.N < 1 || (i > 0 && l.N <= lines[i-1].N) {
				t.Fatalf("accepted a bad line %+v: %v", l, err)
			}
			b, err := encodeHistoryLine(l)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b...)
		}
		again, bad := ParseHistory(out)
		if len(bad) > 0 || len(again) != len(lines) {
			t.Fatalf("written back: %d lines, %v bad; want %d", len(again), bad, len(lines))
		}
		if len(data) > 0 {
			torn, _ := ParseHistory(data[:len(data)-1])
			if len(torn) > len(lines) {
				t.Fatalf("a torn copy has more lines (%d) than the whole (%d)", len(torn), len(lines))
			}
		}
	})
}

func mustHistory(t *testing.T, s *Store, id string) []HistoryLine {
	t.Helper()
	lines, err := s.History(id)
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

func whats(lines []HistoryLine) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = fmt.Sprintf("%d %s %s", l.N, l.By, l.What)
	}
	return out
}

// A change that changes nothing leaves no trace; each real change is one
// session write and one history line with its author.
func TestCommitWritesOnlyChanges(t *testing.T) {
	s := testStore(t)
	noop := func(*Session) error { return nil }
	if _, changed, err := s.Commit("a", todolist.ByYou, noop); err != nil || changed {
		t.Fatalf("no-op on a new session: changed %v, %v", changed, err)
	}
	if _, err := os.Stat(s.Dir); !os.IsNotExist(err) {
		t.Fatalf("a no-op created the store directory: %v", err)
	}
	w0, _ := WriteStats()
	if _, changed, err := s.Commit("a", todolist.ByYou, addTodo("one")); err != nil || !changed {
		t.Fatalf("add: changed %v, %v", changed, err)
	}
	if _, changed, err := s.Commit("a", todolist.ByAgent, func(sess *Session) error { return todolist.SetStatus(sess.Todos, 0, todolist.Completed) }); err != nil || !changed {
		t.Fatalf("complete: %v %v", changed, err)
	}
	before, _ := os.ReadFile(s.SessionHistoryPath("a"))
	for _, fn := range []func(*Session) error{noop, func(sess *Session) error { return todolist.SetStatus(sess.Todos, 0, todolist.Completed) }} {
		if _, changed, err := s.Commit("a", todolist.ByYou, fn); err != nil || changed {
			t.Fatalf("repeat: changed %v, %v", changed, err)
		}
	}
	if after, _ := os.ReadFile(s.SessionHistoryPath("a")); !bytes.Equal(before, after) {
		t.Error("a no-op appended to the history")
	}
	if w1, _ := WriteStats(); w1-w0 != 2 {
		t.Errorf("%d session writes for 2 changes", w1-w0)
	}
	got := whats(mustHistory(t, s, "a"))
	want := []string{`1 you added 1 "one"`, "2 agent completed 1"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("history %q, want %q", got, want)
	}
	names, _ := os.ReadDir(s.Dir)
	var files []string
	for _, n := range names {
		files = append(files, n.Name())
	}
	if fmt.Sprint(files) != "[.locks hist-a.jsonl todo-a.json]" {
		t.Errorf("store holds %v", files)
	}
}

// An older file's archive becomes the start of its history, and a list
// changed outside the store is recorded before the next change.
func TestHistoryMigratesArchiveAndSeesOtherWrites(t *testing.T) {
	s := testStore(t)
	at := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	writeRaw(t, s, "old", []byte(`{"version":1,"session":"old","todos":[{"content":"cur","status":"pending"}],
		"archive":[{"at":"2026-11-20T10:00:00Z","reason":"cleared","todos":[{"content":"gone","status":"completed"}]},
		{"at":"2026-11-20T11:00:00Z","reason":"dropped by agent","todos":[{"content":"dropped","status":"pending"}]}]}`))
	if _, err := s.Update("old", addTodo("new")); err != nil {
		t.Fatal(err)
	}
	lines := mustHistory(t, s, "old")
	want := []string{"1 you from the archive: cleared (1 item)", "2 agent from the archive: dropped by agent (1 item)",
		"3 other process the list as it was before its history began", `4 you added 2 "new"`}
	if fmt.Sprint(whats(lines)) != fmt.Sprint(want) {
		t.Fatalf("history %q\nwant %q", whats(lines), want)
	}
	if !lines[0].At.Equal(at) || lines[0].Todos[0].Content != "gone" || !lines[0].Base {
		t.Errorf("archive line %+v", lines[0])
	}
	if data, _ := os.ReadFile(s.Path("old")); bytes.Contains(data, []byte(`"archive"`)) { // its lines ahead name it in their words
		t.Error("the session file still holds the archive")
	}
	// Another program rewrites the file.
	sess, _ := s.Load("old")
	sess.Todos = todolisttest.List("cur", "new", "edited by hand")
	data, _ := Encode(sess)
	writeRaw(t, s, "old", data)
	if _, err := s.Update("old", func(sess *Session) error { return todolist.SetStatus(sess.Todos, 0, todolist.Completed) }); err != nil {
		t.Fatal(err)
	}
	lines = mustHistory(t, s, "old")
	got := whats(lines[4:])
	if fmt.Sprint(got) != fmt.Sprint([]string{`5 other process added 3 "edited by hand"`, "6 you completed 1"}) {
		t.Errorf("after an outside edit: %q", got)
	}
}

func TestRevertChainAndRestore(t *testing.T) {
	s := testStore(t)
	for _, text := range []string{"a", "b", "c"} {
		if _, err := s.Update("r", addTodo(text)); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := s.Commit("r", todolist.ByYou, func(sess *Session) error { sess.Paused, sess.PauseReason = true, "why"; return nil }); err != nil {
		t.Fatal(err)
	}
	contents := func(sess *Session) string { return strings.Join(todolisttest.Texts(sess.Todos), ",") }
	for _, want := range []struct {
		took int
		list string
	}{{3, "a,b"}, {2, "a"}, {1, ""}} {
		sess, took, err := s.Revert("r", todolist.ByYou)
		if err != nil {
			t.Fatal(err)
		}
		if took.N != want.took || contents(sess) != want.list {
			t.Errorf("revert took %d leaving %q; want %d leaving %q", took.N, contents(sess), want.took, want.list)
		}
	}
	if _, _, err := s.Revert("r", todolist.ByYou); !errors.Is(err, ErrNothingToRevert) {
		t.Errorf("revert past the start: %v", err)
	}
	// A new change ends the chain; reverting it undoes just it.
	s.Update("r", addTodo("d"))
	if sess, took, _ := s.Revert("r", todolist.ByYou); contents(sess) != "" || !strings.Contains(took.What, `added 1 "d"`) {
		t.Errorf("after a new change revert took %q leaving %q", took.What, contents(sess))
	}
	sess, changed, err := s.Restore("r", 3, todolist.ByYou)
	if err != nil || !changed || contents(sess) != "a,b,c" {
		t.Errorf("restore 3: %q %v %v", contents(sess), changed, err)
	}
	if _, _, err := s.Restore("r", 99, todolist.ByYou); err == nil || !strings.Contains(err.Error(), "holds changes 1-") {
		t.Errorf("restore 99: %v", err)
	}
	// A restore is a change: reverting it brings back the empty list.
	if sess, took, _ := s.Revert("r", todolist.ByYou); contents(sess) != "" || took.What != "restored the list of change 3" {
		t.Errorf("revert of restore took %q leaving %q", took.What, contents(sess))
	}
	if l, ok := s.LastList("r"); !ok || len(l.Todos) != 3 {
		t.Errorf("LastList = %+v %v", l, ok)
	}
}

// The cap drops the oldest lines, never the newest, and a history with an
// unreadable line is set aside rather than overwritten.
func TestHistoryCap(t *testing.T) {
	s := testStore(t)
	big := func(tag string) func(*Session) error {
		return func(sess *Session) error {
			sess.Todos = make([]todolist.Todo, 60)
			for i := range sess.Todos {
				sess.Todos[i] = todolist.Todo{Content: tag + strings.Repeat("x", 990), Status: todolist.Pending}
			}
			return nil
		}
	}
	for i := 0; i < 80; i++ {
		if _, err := s.Update("big", big(fmt.Sprintf("%02d", i))); err != nil {
			t.Fatal(err)
		}
	}
	info, _ := os.Stat(s.SessionHistoryPath("big"))
	lines := mustHistory(t, s, "big")
	if info.Size() > MaxHistoryBytes || lines[len(lines)-1].N != 80 || lines[0].N == 1 {
		t.Errorf("history of %d bytes holds changes %d-%d", info.Size(), lines[0].N, lines[len(lines)-1].N)
	}
	if !strings.HasPrefix(lines[len(lines)-1].Todos[0].Content, "79") {
		t.Error("the newest list was not kept")
	}

	// By count: a history at the cap with a bad line in it.
	var buf bytes.Buffer
	for n := 1; n <= MaxHistoryLines; n++ {
		b, _ := encodeHistoryLine(HistoryLine{N: n, By: todolist.ByYou, What: "w", Todos: todolisttest.List("a")})
		buf.Write(b)
		if n == 5 {
			buf.WriteString("garbage\n")
		}
	}
	os.WriteFile(s.SessionHistoryPath("many"), buf.Bytes(), 0o644)
	writeRaw(t, s, "many", []byte(`{"version":1,"todos":[{"content":"a","status":"pending"}]}`))
	if _, err := s.Update("many", addTodo("b")); err != nil {
		t.Fatal(err)
	}
	lines = mustHistory(t, s, "many")
	if len(lines) != MaxHistoryLines/2 || lines[len(lines)-1].N != MaxHistoryLines+1 {
		t.Errorf("after the cap: %d lines, last %d", len(lines), lines[len(lines)-1].N)
	}
	if aside, err := os.ReadFile(s.SessionHistoryPath("many") + ".bad-1"); err != nil || !bytes.HasPrefix(aside, buf.Bytes()) {
		t.Errorf("the history with a bad line was not set aside whole: %v", err)
	}
}

// A garbage or torn end of the history is skipped: the list keeps working
// and changes go on being recorded.
func TestHistoryDamagedEnd(t *testing.T) {
	s := testStore(t)
	s.Update("d", addTodo("a"))
	f, _ := os.OpenFile(s.SessionHistoryPath("d"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("not json\n{\"n\":7,\"tor")
	f.Close()
	if _, err := s.Update("d", addTodo("b")); err != nil {
		t.Fatal(err)
	}
	lines, err := s.History("d")
	var herr *HistoryError
	if !errors.As(err, &herr) || len(herr.Bad) != 1 || herr.Bad[0].Line != 2 || strings.Contains(err.Error(), "\n") {
		t.Fatalf("History error = %v", err)
	}
	if fmt.Sprint(whats(lines)) != fmt.Sprint([]string{`1 you added 1 "a"`, `2 you added 2 "b"`}) {
		t.Errorf("history %q", whats(lines))
	}
}

func TestRemoveSession(t *testing.T) {
	s := testStore(t)
	s.Update("x", addTodo("a"))
	os.WriteFile(s.ConvPath("x"), []byte("{}"), 0o644)
	if err := s.Remove("x"); err != nil {
		t.Fatal(err)
	}
	for _, p := range s.sessionFiles("x") {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s survived", filepath.Base(p))
		}
	}
}

// runAddReverter makes count changes to session id: adds, and every third
// a revert. It prints how many changes it made. Args: root id proc count.
// Every process adds twice before each revert, so there is always an add
// not taken back: a revert that finds nothing to take back fails it.
func runAddReverter(args []string) error {
	s := Open(args[0])
	proc, _ := strconv.Atoi(args[2])
	count, _ := strconv.Atoi(args[3])
	made := 0
	for n := 0; n < count; n++ {
		var err error
		if n%3 == 2 {
			_, _, err = s.Revert(args[1], todolist.ByYou)
		} else {
			_, err = s.Update(args[1], addTodo(fmt.Sprintf("p%d-%d", proc, n)))
		}
		if err != nil {
			return err
		}
		made++
	}
	fmt.Println(made)
	return nil
}

// TestConcurrentHistory runs processes that add and revert at once: the
// history has exactly one line per change, numbered without gaps, each
// revert line holds the list from before the change it took back, each
// add line is its predecessor plus one item, and the last line is the file.
func TestConcurrentHistory(t *testing.T) {
	const procs, perProc = 4, 15
	s := testStore(t)
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	for p := 0; p < procs; p++ {
		cmd := helper("addreverter", s.Root, "h", strconv.Itoa(p), strconv.Itoa(perProc))
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := cmd.Output()
			if err != nil {
				t.Errorf("process: %v", err)
				return
			}
			n, _ := strconv.Atoi(strings.TrimSpace(string(out)))
			mu.Lock()
			total += n
			mu.Unlock()
		}()
	}
	wg.Wait()
	lines := mustHistory(t, s, "h")
	if len(lines) != total {
		t.Fatalf("%d history lines for %d changes", len(lines), total)
	}
	for i, l := range lines {
		if l.N != i+1 {
			t.Fatalf("line %d is change %d", i+1, l.N)
		}
		prev := before(lines, i)
		switch {
		case l.Revert > 0:
			if !todolist.SameTodos(l.Todos, before(lines, l.Revert-1)) {
				t.Errorf("change %d reverted %d but holds another list", l.N, l.Revert)
			}
		case len(l.Todos) != len(prev)+1 || !strings.HasPrefix(l.What, "added "):
			t.Errorf("change %d %q is not one add after %d items", l.N, l.What, len(prev))
		}
	}
	sess, _ := s.Load("h")
	if !todolist.SameTodos(sess.Todos, lines[len(lines)-1].Todos) {
		t.Error("the file differs from the last history line")
	}
}

func TestWho(t *testing.T) {
	later := processStart.Add(time.Second)
	for _, tc := range []struct {
		l    HistoryLine
		want todolist.Author
	}{
		{HistoryLine{By: todolist.ByYou, PID: processID, At: later}, todolist.ByYou},
		{HistoryLine{By: todolist.ByYou, PID: processID + 1, At: later}, todolist.ByOther},
		{HistoryLine{By: todolist.ByYou, PID: processID + 1, At: processStart.Add(-time.Hour)}, todolist.ByYou},
		{HistoryLine{By: todolist.ByAgent, PID: processID + 1, At: later}, todolist.ByAgent},
		{HistoryLine{By: todolist.ByOther}, todolist.ByOther},
	} {
		if got := tc.l.Who(); got != tc.want {
			t.Errorf("Who(%+v) = %q, want %q", tc.l, got, tc.want)
		}
	}
}

// LastList reads backwards past many windows of empty lists.
func TestLastListFarBack(t *testing.T) {
	s := testStore(t)
	os.MkdirAll(s.Dir, 0o755)
	var buf []byte
	for n := 1; n <= 200; n++ {
		l := HistoryLine{N: n, By: todolist.ByYou, What: "w", Todos: todolisttest.List()}
		if n == 7 {
			l.Todos = todolisttest.List("kept")
		}
		b, _ := encodeHistoryLine(l)
		buf = append(buf, b...)
	}
	os.WriteFile(s.SessionHistoryPath("far"), append(buf, `{"n":201,"tor`...), 0o644)
	if l, ok := s.LastList("far"); !ok || l.N != 7 || l.Todos[0].Content != "kept" {
		t.Errorf("LastList = %+v, %v", l, ok)
	}
	if _, ok := s.LastList("none"); ok {
		t.Error("LastList of a session without history found a list")
	}
}

// A history line names its author once: Said drops the "agent " that older
// versions wrote before the words, and leaves every other line alone.
func TestHistoryLineSaid(t *testing.T) {
	for _, c := range []struct {
		by         todolist.Author
		what, want string
	}{
		{todolist.ByAgent, "agent wrote a list of 3 items", "wrote a list of 3 items"},
		{todolist.ByAgent, "wrote a list of 3 items", "wrote a list of 3 items"},
		{todolist.ByAgent, "agent rewrote the list: 1 added", "rewrote the list: 1 added"},
		{todolist.ByYou, `added 1 "agent smith"`, `added 1 "agent smith"`},
		{todolist.ByOther, "agent wrote a list of 2 items", "agent wrote a list of 2 items"},
	} {
		if got := (HistoryLine{By: c.by, What: c.what}).Said(); got != c.want {
			t.Errorf("Said(%s, %q) = %q, want %q", c.by, c.what, got, c.want)
		}
	}
}
