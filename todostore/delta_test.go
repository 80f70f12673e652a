package todostore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/todosh/todosh/todolist/todolisttest"

	"github.com/todosh/todosh/todolist"
)

// A delta states exactly the list after, for every kind of change, and is
// small for a small change.
func TestDeltaRoundTrip(t *testing.T) {
	base := func() []todolist.Todo {
		l := todolisttest.List("a", "b:>", "c", "d:x", "e")
		l[2].Subtasks = []todolist.Subtask{{ID: "3.1", Content: "s1", Status: todolist.Pending}, {ID: "3.2", Content: "s2", Status: todolist.Pending}, {ID: "3.3", Content: "s3", Status: todolist.Completed}}
		todolist.Normalize(l)
		return l
	}
	tests := []struct {
		name   string
		change func([]todolist.Todo) []todolist.Todo
		max    int // bytes of the delta at most (0: no bound)
	}{
		{"nothing", func(l []todolist.Todo) []todolist.Todo { return l }, 8},
		{"status", func(l []todolist.Todo) []todolist.Todo { l[0].Status = todolist.Completed; return l }, 80},
		{"subtask ticked", func(l []todolist.Todo) []todolist.Todo { l[2].Subtasks[1].Status = todolist.Completed; return l }, 160},
		{"subtask added", func(l []todolist.Todo) []todolist.Todo {
			l[2].Subtasks = append(l[2].Subtasks, todolist.Subtask{ID: "3.4", Content: "s4", Status: todolist.Pending})
			return l
		}, 200},
		{"subtask removed", func(l []todolist.Todo) []todolist.Todo {
			l[2].Subtasks = append(l[2].Subtasks[:0:0], l[2].Subtasks[0], l[2].Subtasks[2])
			return l
		}, 160},
		{"item added at the front", func(l []todolist.Todo) []todolist.Todo {
			return append([]todolist.Todo{{ID: "0", Content: "new", Status: todolist.Pending}}, l...)
		}, 0},
		{"item removed", func(l []todolist.Todo) []todolist.Todo { return append(l[:1:1], l[2:]...) }, 0},
		{"moved", func(l []todolist.Todo) []todolist.Todo { l[0], l[4] = l[4], l[0]; return l }, 0},
		{"text edited", func(l []todolist.Todo) []todolist.Todo {
			l[1].Content = "b, now longer"
			l[1].ActiveForm = "Doing b"
			return l
		}, 0},
		{"field cleared", func(l []todolist.Todo) []todolist.Todo { l[1].ActiveForm = ""; return l }, 0},
		{"cleared", func([]todolist.Todo) []todolist.Todo { return []todolist.Todo{} }, 8},
		{"replaced", func([]todolist.Todo) []todolist.Todo { return todolisttest.List("x", "y") }, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := base()
			before[1].ActiveForm = "Doing b"
			after := tt.change(todolist.CloneTodos(before))
			d, err := encodeDelta(before, after)
			if err != nil {
				t.Fatal(err)
			}
			got, err := applyDelta(before, d)
			if err != nil {
				t.Fatalf("apply %s: %v", d, err)
			}
			if !todolist.SameTodos(got, after) {
				t.Errorf("delta %s gave\n%+v\nwant\n%+v", d, got, after)
			}
			if tt.max > 0 && len(d) > tt.max {
				t.Errorf("delta of %d bytes (over %d): %s", len(d), tt.max, d)
			}
		})
	}
}

// A delta that does not fit the list it is applied to is refused, never
// applied halfway.
func TestDeltaRefusesWrongBase(t *testing.T) {
	for _, d := range []string{`[[0,5]]`, `[[2,1]]`, `[{"i":9,"t":{"content":"x","status":"pending"}}]`, `[{"i":0,"t":{},"s":[[0,3]]}]`, `{`, `[[0]]`, `["x"]`} {
		if _, err := applyDelta(todolisttest.List("a", "b"), []byte(d)); err == nil {
			t.Errorf("%s applied to a 2-item list", d)
		}
	}
}

// FuzzDelta: for any two lists, the delta of one to the other gives the
// other back.
func FuzzDelta(f *testing.F) {
	f.Add([]byte("abc\x00def\x01"))
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 200, 100, 50})
	f.Fuzz(func(t *testing.T, data []byte) {
		before, after := todolisttest.FuzzLists(data)
		d, err := encodeDelta(before, after)
		if err != nil {
			t.Skip(err)
		}
		got, err := applyDelta(before, d)
		if err != nil {
			t.Fatalf("apply %s: %v", d, err)
		}
		if !todolist.SameTodos(got, after) {
			t.Fatalf("delta %s: got %+v want %+v", d, got, after)
		}
	})
}

// FuzzParseHistory: any bytes parse without panic, and every line a
// history returns states a valid list.
func FuzzParseHistory(f *testing.F) {
	f.Add([]byte(`{"n":1,"v":2,"from":1,"at":"2026-01-01T00:00:00Z","by":"you","what":"w","todos":[{"content":"a","status":"pending"}]}` + "\n" +
		`{"n":2,"v":2,"from":1,"db":30,"at":"2026-01-01T00:00:00Z","by":"you","what":"w","d":[[0,0],{"t":{"content":"b","status":"pending"}}]}` + "\n"))
	f.Add([]byte(`{"n":1,"at":"2026-01-01T00:00:00Z","by":"you","what":"w","todos":[]}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lines, _ := ParseHistory(data)
		for _, l := range lines {
			if err := todolist.Validate(l.Todos); err != nil {
				t.Fatalf("line %d: %v", l.N, err)
			}
		}
	})
}

// ninetyNine is a 99-item list of typical text.
func ninetyNine() []todolist.Todo {
	var l []todolist.Todo
	for i := 0; i < 99; i++ {
		l = append(l, todolist.Todo{Content: fmt.Sprintf("item %d: implement the part of the feature that handles case %d", i, i), Status: todolist.Pending})
	}
	todolist.Normalize(l)
	return l
}

// 1,000 changes of a 99-item list, as the writer encodes them, fit in half
// the cap (what the cap keeps), and every line reads back as its list.
func TestThousandChangesFit(t *testing.T) {
	l := ninetyNine()
	var hist []byte
	var at lineChain
	prev := []todolist.Todo{}
	var want [][]todolist.Todo
	for n := 1; n <= 1000; n++ {
		next := todolist.CloneTodos(l)
		i := n % 99
		if next[i].Status == todolist.Pending {
			next[i].Status = todolist.Completed
		} else {
			next[i].Status = todolist.Pending
		}
		if n%50 == 0 {
			next[i].Content += " (edited)"
		}
		todolist.Normalize(next)
		buf, chain, err := encodeLines(at, prev, []HistoryLine{{N: n, By: todolist.ByYou, What: "changed", Todos: next}}, 12000) // about the session file's size
		if err != nil {
			t.Fatal(err)
		}
		hist = append(hist, buf...)
		at, prev, l = chain, next, next
		want = append(want, next)
	}
	if len(hist) > MaxHistoryBytes/2 {
		t.Errorf("1,000 changes take %d bytes, over half the cap (%d)", len(hist), MaxHistoryBytes/2)
	}
	lines, bad := ParseHistory(hist)
	if len(bad) > 0 || len(lines) != 1000 {
		t.Fatalf("%d lines read, bad %v", len(lines), bad)
	}
	for i, line := range lines {
		if !todolist.SameTodos(line.Todos, want[i]) {
			t.Fatalf("line %d reads back as another list", line.N)
		}
	}
	t.Logf("1,000 changes of a 99-item list: %d bytes", len(hist))
}

// Through the store: a history over the cap keeps at least half of its
// lines, from a snapshot, so every line left reads.
func TestHistoryCapKeepsReadableLines(t *testing.T) {
	s := testStore(t)
	if _, err := s.Update("c", func(sess *Session) error { sess.Todos = ninetyNine(); return nil }); err != nil {
		t.Fatal(err)
	}
	// Fill the history to the cap with the writer's own lines (the store
	// would take minutes of fsyncs), then make one more change.
	lines := mustHistory(t, s, "c")
	hist, _ := os.ReadFile(s.SessionHistoryPath("c"))
	at := lineChain{n: lines[0].N, from: lines[0].N}
	cur := lines[0].Todos
	for n := 2; n < MaxHistoryLines; n++ {
		next := todolist.CloneTodos(cur)
		next[n%99].Status = todolist.Completed
		if n%2 == 0 {
			next[n%99].Status = todolist.Pending
		}
		buf, chain, err := encodeLines(at, cur, []HistoryLine{{N: n, By: todolist.ByAgent, What: "w", Todos: next}}, 20000)
		if err != nil {
			t.Fatal(err)
		}
		hist = append(hist, buf...)
		at, cur = chain, next
	}
	if err := os.WriteFile(s.SessionHistoryPath("c"), hist, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update("c", func(sess *Session) error {
		sess.Todos = todolist.CloneTodos(cur)
		sess.Todos[0].Content = "last"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update("c", func(sess *Session) error { sess.Todos[1].Content = "after"; return nil }); err != nil {
		t.Fatal(err)
	}
	got, err := s.History("c")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) < MaxHistoryLines/2 || len(got) > MaxHistoryLines/2+snapshotEvery {
		t.Errorf("the cap kept %d lines, want %d to %d", len(got), MaxHistoryLines/2, MaxHistoryLines/2+snapshotEvery)
	}
	if l := got[len(got)-1]; l.Todos[0].Content != "last" || l.Todos[1].Content != "after" || l.By != todolist.ByYou {
		t.Errorf("newest line after the cap: %+v", l.Todos[:2])
	}
	// The file ends where the oldest kept line is a snapshot.
	data, _ := os.ReadFile(s.SessionHistoryPath("c"))
	if snap, ok := lineHead(data); !ok || !snap {
		t.Errorf("the capped history starts with %.60s", data)
	}
	t.Logf("kept %d lines", len(got))
}

// An old history (every line a whole list) stays readable after the store
// writes new lines into it; revert and restore work across the switch,
// and no "other process" line is made up at the switch.
func TestHistoryFormatSwitch(t *testing.T) {
	s := testStore(t)
	var old bytes.Buffer
	states := [][]todolist.Todo{todolisttest.List("a"), todolisttest.List("a", "b"), todolisttest.List("a:x", "b")}
	for i, todos := range states {
		b, err := encodeHistoryLine(HistoryLine{N: i + 1, By: todolist.ByYou, What: fmt.Sprintf("old %d", i+1), Todos: todos, PID: 1})
		if err != nil {
			t.Fatal(err)
		}
		old.Write(b)
	}
	writeRaw(t, s, "sw", []byte(`{"version":1,"session":"sw","todos":[{"id":"1","content":"a","status":"completed"},{"id":"2","content":"b","status":"pending"}]}`))
	if err := os.WriteFile(s.SessionHistoryPath("sw"), old.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update("sw", addTodo("c")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update("sw", func(sess *Session) error { return todolist.SetStatus(sess.Todos, 1, todolist.Completed) }); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(s.SessionHistoryPath("sw"))
	if !bytes.HasPrefix(data, old.Bytes()) || !strings.Contains(string(data[old.Len():]), `"v":2`) {
		t.Fatalf("the old lines were not kept as they were, or no new line was written:\n%s", data)
	}
	lines := mustHistory(t, s, "sw")
	if got := strings.Join(whats(lines), "|"); strings.Count(got, "other process") > 0 || len(lines) != 5 {
		t.Fatalf("history across the switch: %s", got)
	}
	if c := itemTexts(lines[4].Todos); c != "a b c" || lines[4].Todos[1].Status != todolist.Completed {
		t.Errorf("newest line: %s", c)
	}
	// Revert takes back the new-format change, then the first new one.
	if _, took, err := s.Revert("sw", todolist.ByYou); err != nil || took.N != 5 {
		t.Fatalf("revert: took %d, %v", took.N, err)
	}
	if _, took, err := s.Revert("sw", todolist.ByYou); err != nil || took.N != 4 {
		t.Fatalf("second revert: took %d, %v", took.N, err)
	}
	sess, _ := s.Load("sw")
	if !todolist.SameTodos(sess.Todos, states[2]) {
		t.Errorf("after two reverts: %s", todolisttest.Contents(sess.Todos))
	}
	// Restore an old-format change.
	if _, _, err := s.Restore("sw", 1, todolist.ByYou); err != nil {
		t.Fatal(err)
	}
	sess, _ = s.Load("sw")
	if !todolist.SameTodos(sess.Todos, states[0]) {
		t.Errorf("restore 1: %s", todolisttest.Contents(sess.Todos))
	}
	if _, bad := ParseHistory(mustRead(t, s.SessionHistoryPath("sw"))); len(bad) > 0 {
		t.Errorf("unreadable lines: %v", bad)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// A change whose process died after the rename and before the history
// append keeps its author and words: the next writer, and History before
// it, show it as that change, not as another process's.
func TestLostLineKeepsItsAuthor(t *testing.T) {
	for _, by := range []todolist.Author{todolist.ByYou, todolist.ByAgent} {
		t.Run(string(by), func(t *testing.T) {
			s := testStore(t)
			if _, err := s.Update("l", addTodo("one")); err != nil {
				t.Fatal(err)
			}
			before := mustRead(t, s.SessionHistoryPath("l"))
			if _, _, err := s.Commit("l", by, addTodo("two")); err != nil {
				t.Fatal(err)
			}
			// The crash: the history as it was before the append, and a
			// fresh process (no cache).
			if err := os.WriteFile(s.SessionHistoryPath("l"), before, 0o600); err != nil {
				t.Fatal(err)
			}
			s = Open(s.Root)
			lines := mustHistory(t, s, "l")
			if len(lines) != 2 || lines[1].By != by || !strings.Contains(lines[1].What, "two") {
				t.Fatalf("History shows %q", whats(lines))
			}
			if _, err := s.Update("l", addTodo("three")); err != nil {
				t.Fatal(err)
			}
			lines = mustHistory(t, s, "l")
			if got := whats(lines); len(lines) != 3 || lines[1].By != by || lines[2].By != todolist.ByYou || strings.Contains(strings.Join(got, "|"), "other process") {
				t.Errorf("after the next change: %q", got)
			}
			if !todolist.SameTodos(lines[1].Todos, todolisttest.List("one", "two")) {
				t.Errorf("recovered line's list: %s", todolisttest.Contents(lines[1].Todos))
			}
		})
	}
}

// A list changed behind the store's back (an editor) is still an "other
// process" line, although the file keeps the record of the change before.
func TestEditedFileIsOtherProcess(t *testing.T) {
	s := testStore(t)
	if _, err := s.Update("e", addTodo("one")); err != nil {
		t.Fatal(err)
	}
	data := mustRead(t, s.Path("e"))
	edited := bytes.Replace(data, []byte(`"one"`), []byte(`"uno"`), 1)
	if err := os.WriteFile(s.Path("e"), edited, 0o600); err != nil { // in place, same size
		t.Fatal(err)
	}
	if _, err := s.Update("e", addTodo("two")); err != nil {
		t.Fatal(err)
	}
	lines := mustHistory(t, s, "e")
	if len(lines) != 3 || lines[1].By != todolist.ByOther || itemTexts(lines[2].Todos) != "uno two" {
		t.Errorf("history: %q, last %s", whats(lines), todolisttest.Contents(lines[len(lines)-1].Todos))
	}
}

// One operation reads and decodes the session file at most once: a change
// to the file this process last wrote decodes nothing, a Load after it
// neither; another process's write is read, once.
func TestOneDecodePerOperation(t *testing.T) {
	s := testStore(t)
	if _, err := s.Update("d", addTodo("one")); err != nil {
		t.Fatal(err)
	}
	d0 := decodes.Load()
	for i := 0; i < 3; i++ {
		if _, err := s.Update("d", addTodo(fmt.Sprint("more ", i))); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Load("d"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.Commit("d", todolist.ByYou, func(*Session) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if n := decodes.Load() - d0; n != 0 {
		t.Errorf("changes to this process's own file decoded it %d times", n)
	}
	// Another process writes (another Store, no shared cache).
	other := Open(s.Root)
	if _, err := other.Update("d", addTodo("theirs")); err != nil {
		t.Fatal(err)
	}
	d0 = decodes.Load()
	sess, err := s.Load("d")
	if err != nil || itemTexts(sess.Todos) != "one more 0 more 1 more 2 theirs" {
		t.Fatalf("after another process's write: %v %v", sess, err)
	}
	if _, err := s.Update("d", addTodo("mine")); err != nil {
		t.Fatal(err)
	}
	if n := decodes.Load() - d0; n != 1 {
		t.Errorf("another process's write was decoded %d times, want once", n)
	}
	// A copy handed out is the caller's: changing it changes no one else's.
	sess.Todos[0].Content = "scribbled"
	again, _ := s.Load("d")
	if again.Todos[0].Content != "one" {
		t.Error("a loaded session shares its list with the cache")
	}
	lines := mustHistory(t, s, "d")
	if got := strings.Join(whats(lines), "|"); strings.Contains(got, "other process") {
		t.Errorf("history: %s", got)
	}
}

// The cache never hides a change: a file replaced with one of the same
// size, or rewritten in place, is read again.
func TestCacheSeesEveryWrite(t *testing.T) {
	s := testStore(t)
	if _, err := s.Update("k", addTodo("aaaa")); err != nil {
		t.Fatal(err)
	}
	data := mustRead(t, s.Path("k"))
	same := bytes.Replace(data, []byte(`"aaaa"`), []byte(`"bbbb"`), 1)
	if err := WriteFileAtomic(s.Path("k"), same); err != nil {
		t.Fatal(err)
	}
	if sess, _ := s.Load("k"); itemTexts(sess.Todos) != "bbbb" {
		t.Errorf("after a same-size replace: %s", todolisttest.Contents(sess.Todos))
	}
	inPlace := bytes.Replace(data, []byte(`"aaaa"`), []byte(`"cccccc"`), 1)
	if err := os.WriteFile(s.Path("k"), inPlace, 0o600); err != nil {
		t.Fatal(err)
	}
	if sess, _ := s.Load("k"); itemTexts(sess.Todos) != "cccccc" {
		t.Errorf("after an in-place write: %s", todolisttest.Contents(sess.Todos))
	}
	os.Remove(s.Path("k"))
	if _, err := s.Load("k"); !os.IsNotExist(err) {
		t.Errorf("after removal: %v", err)
	}
}

// itemTexts is a list's item texts, space-separated.
func itemTexts(todos []todolist.Todo) string {
	var out []string
	for _, t := range todos {
		out = append(out, t.Content)
	}
	return strings.Join(out, " ")
}

// The fast encoder writes the bytes encoding/json writes, for any list.
func FuzzEncodeSameAsMarshalIndent(f *testing.F) {
	f.Add([]byte("abc\x00def\x01<>&\u2028\xff"))
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 200, 100, 50})
	f.Fuzz(func(t *testing.T, data []byte) {
		_, todos := todolisttest.FuzzLists(data)
		if len(todos) > 0 {
			todos[0].ActiveForm = string(data)
			todos[len(todos)-1].Evidence = "<" + string(data) + "\u2029"
			todos[0].Origin = todolist.OriginPerson
			// Stable ids and revisions (revs.go) are in the file too.
			todos[0].UID, todos[0].Rev = "t"+strconv.Itoa(len(data)), len(data)
			if len(todos[0].Subtasks) > 0 {
				todos[0].Subtasks[0].UID, todos[0].Subtasks[0].Rev = "s1", 1
			}
		}
		sess := &Session{Version: 1, Session: "s", Cwd: "/x", Todos: todos, Rev: 4, NextUID: 9, AgentRead: 2, Change: &todolist.ChangeRecord{N: 3, Hash: "h", What: string(data)}}
		// The session's own fields, which appendHead writes or leaves to
		// encoding/json, varied by the input's length and first byte.
		var b0 byte
		if len(data) > 0 {
			b0 = data[0]
		}
		zone := time.FixedZone("z", (int(b0)%48-24)*1800)
		sess.UpdatedAt = time.Date(2026, 11, 25, 17, 8, 9, len(data)*1000003, time.UTC)
		if b0&1 != 0 {
			sess.CreatedAt = time.Date(1999+int(b0)%9000, 1, 2, 3, 4, 5, int(b0)*7, zone)
		}
		if b0&2 != 0 {
			sess.Agent = &AgentRef{Kind: "claude", Session: string(data)}
			if b0&4 != 0 {
				sess.Agent.Tasks = []AgentTask{{ID: "1", Subject: string(data)}, {ID: "<2>", Subject: "b"}}
			}
		}
		sess.Paused, sess.PauseReason = b0&8 != 0, strings.Repeat(string(data), int(b0>>4)%2)
		if b0&16 != 0 {
			sess.Change = nil
		} else {
			sess.Change.At, sess.Change.By, sess.Change.Revert, sess.Change.PID = sess.UpdatedAt.In(zone), todolist.ByAgent, int(b0), len(data)
			if b0&32 != 0 {
				sess.Change.Dropped = todos
			}
		}
		if b0&64 != 0 {
			sess.Hooks = &HookState{NoProgress: 1, Before: todos}
		}
		if b0&128 != 0 {
			sess.Extra = todolist.Extra{"zz": json.RawMessage(`{"a":[1,2]}`)}
		}
		want, err := json.MarshalIndent(sess, "", "  ")
		if err != nil {
			t.Skip(err)
		}
		enc, _, err := encodeFast(sess, nil, nil)
		got := enc.bytes()
		if err != nil || !bytes.Equal(got, want) || enc.Size != len(got) {
			t.Fatalf("encodeFast:\n%s\nwant:\n%s\n%v", got, want, err)
		}
		// Again after a change, reusing the items that did not change.
		before, after := todolisttest.FuzzLists(append([]byte{7}, data...))
		if _, prevItems, err := encodeFast(&Session{Version: 1, Todos: before}, nil, nil); err == nil && prevItems != nil {
			sess.Todos = todolist.CloneTodos(after)
			// An item equal but for its revision is encoded again, not reused.
			for i := range sess.Todos {
				if i < len(before) && todolist.SameTodo(before[i], sess.Todos[i]) {
					sess.Todos[i].Rev = before[i].Rev + 1
					break
				}
			}
			want, _ = json.MarshalIndent(sess, "", "  ")
			if again, _, err := encodeFast(sess, before, prevItems); err != nil || !bytes.Equal(again.bytes(), want) {
				t.Fatalf("encodeFast reusing items:\n%s\nwant:\n%s\n%v", again.bytes(), want, err)
			}
		}
	})
}

// A change to one subtask of a large list encodes that item and copies the
// others, and the file is byte for byte what encoding/json writes.
func TestEncodeReusingItems(t *testing.T) {
	var todos []todolist.Todo
	for i := 0; i < 20; i++ {
		td := todolist.Todo{Content: fmt.Sprintf("item %d <b> & \"q\"", i), Status: todolist.Pending}
		for j := 0; j < 50; j++ {
			td.Subtasks = append(td.Subtasks, todolist.Subtask{Content: fmt.Sprintf("step %d", j), Status: todolist.Pending})
		}
		todos = append(todos, td)
	}
	todolist.Normalize(todos)
	sess := &Session{Version: 1, Session: "r", Todos: todos}
	_, items, err := encodeReusing(sess, nil, nil)
	if err != nil || len(items) != 20 {
		t.Fatalf("%d items, %v", len(items), err)
	}
	next := sess.clone()
	next.Todos[7].Subtasks[3].Status = todolist.Completed
	todolist.Normalize(next.Todos)
	enc, items2, err := encodeReusing(next, sess.Todos, items)
	got := enc.bytes()
	want, _ := json.MarshalIndent(next, "", "  ")
	if err != nil || !bytes.Equal(got, append(want, '\n')) || enc.Size != len(got) {
		t.Fatalf("reusing items: %v\n%s", err, got)
	}
	for k := range items2 {
		if same := bytes.Equal(items2[k], items[k]); same != (k != 7) {
			t.Errorf("item %d: encoding the same as before: %v", k+1, same)
		}
	}
}

// FuzzListHashes holds the hash of a list made from the states of the
// list before it (listHashes) to the hash of the whole list, and its
// states to the ones hashing it whole gives.
func FuzzListHashes(f *testing.F) {
	for _, seed := range []string{"", "\x03abc\x00\x01", "\x04\x80\x81\x82\x83\x06\x07", "\x05aabbc\x61\x72\x83\x94\xa5\xb6\xc7"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		before, after := todolisttest.FuzzLists(data)
		_, prevAt := listHashes(before, nil, nil)
		got, at := listHashes(after, before, prevAt)
		want, wantAt := listHashes(after, nil, nil)
		if got != want || got != listHash(after) || !slices.Equal(at, wantAt) {
			t.Fatalf("hash from the list before %x, whole %x\nstates %x\nwhole  %x", got, want, at, wantAt)
		}
		if bad, _ := listHashes(after, before, prevAt[:len(prevAt)-1]); bad != want {
			t.Fatal("states of another length were used")
		}
	})
}

// TestListHashGolden: the hash history lines and session files carry is
// the one todosh wrote before listHash kept states (0x4a5e992787fe9b4f,
// by the code of that time), so files written then still check.
func TestListHashGolden(t *testing.T) {
	var l []todolist.Todo
	for i := 0; i < 30; i++ {
		td := todolist.Todo{Content: fmt.Sprintf("item %d <é> %s", i, strings.Repeat("x", i*40)), Status: todolist.Pending, Evidence: fmt.Sprint(i), Origin: todolist.OriginPerson}
		for j := 0; j < i%7*8; j++ {
			td.Subtasks = append(td.Subtasks, todolist.Subtask{Content: fmt.Sprintf("s %d.%d", i, j), Status: todolist.Completed, Evidence: strings.Repeat("e", j*13)})
		}
		l = append(l, td)
	}
	todolist.Normalize(l)
	if got := listHash(l); got != 0x4a5e992787fe9b4f {
		t.Errorf("listHash = %x, want 4a5e992787fe9b4f", got)
	}
	// And from the states of a list that differs in one item.
	before := todolist.CloneTodos(l)
	before[17].Subtasks[2].Status = todolist.Pending
	todolist.Normalize(before)
	_, at := listHashes(before, nil, nil)
	if got, _ := listHashes(l, before, at); got != 0x4a5e992787fe9b4f {
		t.Errorf("listHashes from the list before = %x, want 4a5e992787fe9b4f", got)
	}
}

// TestEstimateHoldsAnItem: an item's encoding fits the buffer estimate
// makes for it, so it is made once.
func TestEstimateHoldsAnItem(t *testing.T) {
	td := todolist.Todo{ID: "100", Content: "item: implement the part of the feature", Status: todolist.InProgress, UID: "t12345", Rev: 123456, Origin: todolist.OriginPerson}
	for j := 0; j < todolist.MaxSubtasks; j++ {
		td.Subtasks = append(td.Subtasks, todolist.Subtask{ID: fmt.Sprintf("100.%d", j+1), Content: "s", Status: todolist.Completed, Origin: todolist.OriginPerson, UID: fmt.Sprintf("s%d", 100000+j), Rev: 123456})
	}
	if got, est := len(appendTodo(nil, td)), estimate([]todolist.Todo{td}); got > est {
		t.Errorf("an item of %d bytes, estimated %d", got, est)
	}
}

// encodeLines is encodeLinesTo into a buffer of its own.
func encodeLines(at lineChain, prev []todolist.Todo, lines []HistoryLine, limit int) ([]byte, lineChain, error) {
	return encodeLinesTo(nil, at, prev, lines, limit)
}
