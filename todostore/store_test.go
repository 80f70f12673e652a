package todostore

import (
	"bytes"
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/todosh/todosh/todolist/todolisttest"

	"github.com/todosh/todosh/internal/testenv"
	"github.com/todosh/todosh/todolist"
)

// testStore is a Store under a fresh temporary root with a fixed clock.
func testStore(t testing.TB) *Store {
	t.Helper()
	s := Open(t.TempDir())
	s.Now = func() time.Time { return time.Date(2026, 11, 21, 22, 33, 44, 0, time.UTC) }
	return s
}

// addTodo is the Update function that appends one item.
func addTodo(text string) func(*Session) error {
	return func(s *Session) error {
		var err error
		s.Todos, err = todolist.InsertTodo(s.Todos, len(s.Todos), todolist.Todo{Content: text})
		return err
	}
}

// writeRaw puts bytes at the session's path, creating the directory.
func writeRaw(t testing.TB, s *Store, id string, data []byte) string {
	t.Helper()
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := s.Path(id)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDecodeShapes(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		todos  int
		paused bool
		check  func(*testing.T, *Session)
	}{
		{"ours", `{"version":1,"session":"a","todos":[{"id":"1","content":"x","status":"pending"}]}`, 1, false, nil},
		{"llxprt bare array", `[{"id":"1","content":"a","status":"in_progress","priority":"high","subtasks":[{"id":"1.1","content":"s"}]},{"id":"2","content":"b","status":"completed"}]`, 2, false,
			func(t *testing.T, s *Session) {
				if st := s.Todos[0].Subtasks[0].Status; st != todolist.Pending {
					t.Errorf("llxprt subtask status = %q, want pending", st)
				}
			}},
		{"llxprt object", `{"todos":[{"id":"1","content":"a","status":"pending"}],"paused":true}`, 1, true, nil},
		{"llxprt empty array", ` [] `, 0, false, nil},
		{"empty object", `{}`, 0, false, nil},
		{"null todos", `{"version":1,"todos":null}`, 0, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Decode([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if s.Version != todolist.FormatVersion || len(s.Todos) != tt.todos || s.Todos == nil || s.Paused != tt.paused {
				t.Fatalf("Decode = %+v", s)
			}
			if tt.check != nil {
				tt.check(t, s)
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	valid, err := Encode(&Session{Version: 1, Session: "x", Todos: todolisttest.Items("alpha", "beta", "gamma")})
	if err != nil {
		t.Fatal(err)
	}
	huge := append([]byte(`{"version":1,"todos":[],"pad":"`), bytes.Repeat([]byte("x"), todolist.MaxFileSize)...)
	huge = append(huge, `"}`...)
	tests := []struct {
		name string
		in   []byte
		want string
		is   error
	}{
		{"empty", nil, "file is empty", nil},
		{"blank", []byte(" \n\t"), "file is empty", nil},
		{"truncated", valid[:len(valid)/2], "parse", nil},
		{"truncated array", []byte(`[{"content":"a","status":"pending"}`), "parse todo array", nil},
		{"garbage", []byte("hello world"), "not a JSON object or array", nil},
		{"null", []byte("null"), "not a JSON object or array", nil},
		{"number", []byte("42"), "not a JSON object or array", nil},
		{"binary", []byte{0, 1, 2, 0xff}, "not a JSON object or array", nil},
		{"wrong field type", []byte(`{"version":1,"todos":"nope"}`), "parse", nil},
		{"unknown version", []byte(`{"version":2,"todos":[]}`), "version 2: unsupported version (this todosh reads version 1)", ErrUnsupportedVersion},
		{"negative version", []byte(`{"version":-1}`), "version -1", ErrUnsupportedVersion},
		{"too large", huge, "over the limit of 1048576", todolist.ErrLimit},
		{"invalid model", []byte(`{"version":1,"todos":[{"content":"a","status":"blocked"}]}`), `unknown status "blocked"`, nil},
		{"too many todos", []byte("[" + strings.Repeat(`{"content":"a","status":"pending"},`, todolist.MaxTodos) + `{"content":"a","status":"pending"}]`), "101 todos", todolist.ErrLimit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Decode(tt.in)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Decode = %+v, %v; want error containing %q", s, err, tt.want)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v does not wrap %v", err, tt.is)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	now := time.Date(2026, 11, 21, 22, 33, 44, 5, time.UTC)
	sess := &Session{Version: 1, Session: "s", CreatedAt: now, UpdatedAt: now, Cwd: "/src", Agent: &AgentRef{Kind: "claude", Session: "45bb"},
		PauseReason: "", Todos: todolisttest.DesignExample()}
	sess.Archive = []ArchiveEntry{{At: now, Reason: "cleared", Todos: todolisttest.DesignExample()}}
	data, err := Encode(sess)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(data, []byte("}\n")) || !bytes.Contains(data, []byte(`"activeForm": "Implementing the parser"`)) {
		t.Errorf("unexpected encoding:\n%s", data)
	}
	back, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, sess) {
		t.Errorf("round trip differs:\n%+v\n%+v", back, sess)
	}
	big := &Session{Version: 1, Todos: []todolist.Todo{{Content: "x", Status: todolist.Pending, Evidence: strings.Repeat("x", todolist.MaxFileSize)}}}
	if _, err := Encode(big); !errors.Is(err, todolist.ErrLimit) {
		t.Errorf("Encode of a >1 MiB session: %v, want ErrLimit", err)
	}
}

func TestValidSessionID(t *testing.T) {
	tests := []struct {
		id string
		OK bool
	}{
		{"20261121-223344-7f3a", true},
		{"a", true},
		{"A.b_c-9", true},
		{"...", true},
		{strings.Repeat("x", todolist.MaxSessionIDLen), true},
		{strings.Repeat("x", todolist.MaxSessionIDLen+1), false},
		{"", false},
		{".", false},
		{"..", false},
		{"../etc", false},
		{"a/b", false},
		{`a\b`, false},
		{"a b", false},
		{"a\x00", false},
		{"é", false},
		{"a\n", false},
		{"*", false},
	}
	for _, tt := range tests {
		err := ValidSessionID(tt.id)
		if (err == nil) != tt.OK {
			t.Errorf("ValidSessionID(%q) = %v, want ok=%v", tt.id, err, tt.OK)
		}
		if err != nil && !strings.Contains(err.Error(), "invalid session id") {
			t.Errorf("error %q does not say what is wrong", err)
		}
	}
}

func TestNewSessionID(t *testing.T) {
	now := time.Date(2026, 11, 21, 22, 33, 44, 0, time.UTC)
	id := NewSessionID(now)
	if !strings.HasPrefix(id, "20261121-223344-") || len(id) != len("20261121-223344-7f3a") {
		t.Errorf("NewSessionID = %q", id)
	}
	if err := ValidSessionID(id); err != nil {
		t.Error(err)
	}
	if NewSessionID(now.Add(time.Second)) <= id {
		t.Errorf("ids do not sort by start time")
	}
}

func TestResolveRoot(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if r, _ := ResolveRoot(env(map[string]string{"TODOSH_HOME": "/x", "HOME": "/h"})); r != "/x" {
		t.Errorf("TODOSH_HOME: %q", r)
	}
	if r, _ := ResolveRoot(env(map[string]string{"HOME": "/h"})); r != "/h/.todosh" {
		t.Errorf("HOME: %q", r)
	}
	s := Open("/r")
	if s.Dir != "/r/todos" || s.Path("a") != "/r/todos/todo-a.json" || s.HistoryPath() != "/r/history" {
		t.Errorf("paths: %q %q %q", s.Dir, s.Path("a"), s.HistoryPath())
	}
}

func TestUpdateAndLoad(t *testing.T) {
	s := testStore(t)
	var written []byte
	s.AfterWrite = func(id string, data []byte) {
		if id != "a" {
			t.Errorf("AfterWrite id = %q", id)
		}
		written = append([]byte(nil), data...)
	}
	if _, err := os.Stat(s.Dir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Open created the directory")
	}
	got, err := s.Update("a", func(sess *Session) error {
		sess.Cwd = "/src"
		sess.Todos = []todolist.Todo{{ID: "77", Content: "x", Status: todolist.Pending, Subtasks: todolisttest.Subs(todolist.Completed)}}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got.Todos[0].ID != "1" || got.Todos[0].Status != todolist.Completed || got.Session != "a" || got.Version != 1 || !got.UpdatedAt.Equal(s.Now()) {
		t.Errorf("Update result not normalized: %+v", got)
	}
	data, err := os.ReadFile(s.Path("a"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, written) {
		t.Errorf("AfterWrite saw different bytes from the file")
	}
	info, _ := os.Stat(s.Path("a"))
	if info.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v, want 0600", info.Mode().Perm())
	}
	loaded, err := s.Load("a")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(loaded, got) {
		t.Errorf("Load = %+v\nwant %+v", loaded, got)
	}
	if _, err := s.Update("a", addTodo("y")); err != nil {
		t.Fatal(err)
	}
	if l, _ := s.Load("a"); len(l.Todos) != 2 || l.Cwd != "/src" || !l.CreatedAt.Equal(got.CreatedAt) {
		t.Errorf("second update: %+v", l)
	}
	tmps, _ := filepath.Glob(filepath.Join(s.Dir, ".*.tmp"))
	if len(tmps) != 0 {
		t.Errorf("temp files left: %v", tmps)
	}
}

func TestUpdateErrorsWriteNothing(t *testing.T) {
	s := testStore(t)
	if _, err := s.Update("a", addTodo("first")); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(s.Path("a"))
	s.AfterWrite = func(string, []byte) { t.Error("AfterWrite called for a failed update") }
	fnErr := errors.New("refused")
	tests := []struct {
		name string
		fn   func(*Session) error
		want string
	}{
		{"fn error", func(*Session) error { return fnErr }, "refused"},
		{"fn error after change", func(s *Session) error { s.Todos = nil; return fnErr }, "refused"},
		{"invalid list", func(s *Session) error { s.Todos[0].Content = ""; return nil }, "todo 1 text is empty"},
		{"over limit", func(s *Session) error {
			for len(s.Todos) <= todolist.MaxTodos {
				s.Todos = append(s.Todos, todolist.Todo{Content: "x", Status: todolist.Pending})
			}
			return nil
		}, "101 todos"},
		{"too big to encode", func(s *Session) error {
			for len(s.Todos) < todolist.MaxTodos {
				s.Todos = append(s.Todos, todolist.Todo{Content: strings.Repeat("x", todolist.MaxTextLen), ActiveForm: strings.Repeat("y", todolist.MaxTextLen), Evidence: strings.Repeat("z", todolist.MaxTextLen), Status: todolist.Pending})
			}
			for i := range s.Todos {
				for len(s.Todos[i].Subtasks) < 10 {
					s.Todos[i].Subtasks = append(s.Todos[i].Subtasks, todolist.Subtask{Content: strings.Repeat("s", todolist.MaxTextLen), Status: todolist.Pending})
				}
			}
			return nil
		}, "over the limit of 1048576"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Update("a", tt.fn)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Update err = %v, want %q", err, tt.want)
			}
			after, _ := os.ReadFile(s.Path("a"))
			if !bytes.Equal(before, after) {
				t.Errorf("file changed after a failed update")
			}
		})
	}
	if _, err := s.Update("../x", addTodo("y")); err == nil || !strings.Contains(err.Error(), "invalid session id") {
		t.Errorf("bad id: %v", err)
	}
	if _, err := s.Load("../x"); err == nil {
		t.Errorf("Load of a bad id succeeded")
	}
}

func TestLoadMissing(t *testing.T) {
	s := testStore(t)
	if _, err := s.Load("nope"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Load missing = %v, want ErrNotExist", err)
	}
	sess, err := s.LoadOrNew("nope")
	if err != nil || sess.Session != "nope" || sess.Todos == nil || len(sess.Todos) != 0 || sess.Version != 1 {
		t.Fatalf("LoadOrNew = %+v, %v", sess, err)
	}
	if _, err := os.Stat(s.Dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("LoadOrNew touched the disk")
	}
	entries, err := s.List()
	if err != nil || len(entries) != 0 {
		t.Errorf("List of a missing directory = %v, %v", entries, err)
	}
}

func TestList(t *testing.T) {
	s := testStore(t)
	base := time.Now().Add(-time.Hour)
	ids := []string{"old", "new", "tie-a", "tie-b"}
	times := []time.Time{base, base.Add(3 * time.Minute), base.Add(time.Minute), base.Add(time.Minute)}
	for i, id := range ids {
		if _, err := s.Update(id, addTodo(id)); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(s.Path(id), times[i], times[i]); err != nil {
			t.Fatal(err)
		}
	}
	for _, junk := range []string{"todo-.json", "todo-a b.json", "notes.json", "todo-x.json.bak", ".todo-x.json.123.tmp", "todo-x.txt"} {
		if err := os.WriteFile(filepath.Join(s.Dir, junk), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.ID)
		if e.Path != s.Path(e.ID) {
			t.Errorf("entry path %q", e.Path)
		}
	}
	if want := []string{"new", "tie-b", "tie-a", "old"}; !reflect.DeepEqual(got, want) {
		t.Errorf("List order = %v, want %v", got, want)
	}
	sess, err := s.LoadEntry(entries[0])
	if err != nil || sess.Todos[0].Content != "new" {
		t.Errorf("LoadEntry = %+v, %v", sess, err)
	}
}

func TestIDFromFileName(t *testing.T) {
	tests := map[string]string{"todo-a.json": "a", "todo-20261121-223344-7f3a.json": "20261121-223344-7f3a", "todo-..json": "", "todo-.json": "", "x-a.json": "", "todo-a.json.tmp": ""}
	for name, want := range tests {
		id, ok := IDFromFileName(name)
		if id != want || ok != (want != "") {
			t.Errorf("IDFromFileName(%q) = %q, %v", name, id, ok)
		}
	}
}

func TestMostRecentIn(t *testing.T) {
	s := testStore(t)
	set := func(id, cwd string, age time.Duration) {
		if _, err := s.Update(id, func(sess *Session) error { sess.Cwd = cwd; return nil }); err != nil {
			t.Fatal(err)
		}
		at := time.Now().Add(-age)
		os.Chtimes(s.Path(id), at, at)
	}
	set("a-old", "/p", 3*time.Hour)
	set("a-new", "/p", 2*time.Hour)
	set("other", "/q", time.Hour)
	// The newest file is corrupt: it is skipped, not fatal.
	writeRaw(t, s, "broken", []byte("{"))
	if id, err := s.MostRecentIn("/p"); err != nil || id != "a-new" {
		t.Errorf("MostRecentIn(/p) = %q, %v", id, err)
	}
	if _, err := s.MostRecentIn("/none"); err == nil || !strings.Contains(err.Error(), "no session was started in /none") {
		t.Errorf("MostRecentIn(/none) err = %v", err)
	}
}

// TestMostRecentInIsTheLastChanged: --resume and todosh mcp open the
// session of the directory changed last, not the one started last: the
// list a person last worked on (docs/commands.md).
func TestMostRecentInIsTheLastChanged(t *testing.T) {
	s := testStore(t)
	now := time.Now()
	for _, id := range []string{"started-first", "started-last"} {
		if _, err := s.Update(id, func(sess *Session) error { sess.Cwd = "/p"; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	os.Chtimes(s.Path("started-last"), now.Add(-time.Hour), now.Add(-time.Hour))
	if _, err := s.Update("started-first", addTodo("changed last")); err != nil {
		t.Fatal(err)
	}
	if id, err := s.MostRecentIn("/p"); err != nil || id != "started-first" {
		t.Errorf("MostRecentIn(/p) = %q, %v; want the session changed last", id, err)
	}
}

// TestHostileFiles covers session files that must be refused with a
// one-line error naming the path, by Load and by Update, and left exactly
// as they were.
func TestHostileFiles(t *testing.T) {
	valid, _ := Encode(&Session{Version: 1, Session: "x", Todos: todolisttest.Items("a", "b")})
	tests := []struct {
		name  string
		setup func(t *testing.T, path string)
		want  string
	}{
		{"huge", func(t *testing.T, p string) {
			os.WriteFile(p, append(valid, bytes.Repeat([]byte(" "), todolist.MaxFileSize)...), 0o644)
		}, "over the limit of 1048576"},
		{"truncated", func(t *testing.T, p string) { os.WriteFile(p, valid[:len(valid)-7], 0o644) }, "parse"},
		{"empty", func(t *testing.T, p string) { os.WriteFile(p, nil, 0o644) }, "file is empty"},
		{"unknown version", func(t *testing.T, p string) { os.WriteFile(p, []byte(`{"version":7,"todos":[]}`), 0o644) }, "version 7: unsupported version"},
		{"garbage", func(t *testing.T, p string) { os.WriteFile(p, []byte("\x00\x01garbage"), 0o644) }, "not a JSON object"},
		{"archive entry without its item's text", func(t *testing.T, p string) {
			os.WriteFile(p, []byte(`{"version":1,"todos":[],"archive":[{"todos":[{}]}]}`), 0o644)
		}, "archive entry 1: todo 1 text is empty"},
		{"directory", func(t *testing.T, p string) { os.Mkdir(p, 0o755) }, "not a regular file"},
		{"fifo", func(t *testing.T, p string) {
			testenv.NeedModes(t)
			if err := testenv.Mkfifo(p, 0o644); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
		}, "not a regular file"},
		{"symlink to directory", func(t *testing.T, p string) { os.Symlink(t.TempDir(), p) }, symlinkMessage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := testStore(t)
			os.MkdirAll(s.Dir, 0o755)
			p := s.Path("x")
			tt.setup(t, p)
			before := snapshot(t, p)

			_, err := s.Load("x")
			checkOneLineError(t, "Load", err, p, tt.want)
			var ce *CorruptError
			if !errors.As(err, &ce) || ce.Path != p {
				t.Errorf("Load error %T is not a *CorruptError for %s", err, p)
			}
			_, err = s.Update("x", addTodo("more"))
			checkOneLineError(t, "Update", err, p, tt.want)
			if !strings.Contains(err.Error(), "move it aside or start a new session") {
				t.Errorf("Update error does not say how to recover: %v", err)
			}
			if after := snapshot(t, p); after != before {
				t.Errorf("file changed: before %q, after %q", before, after)
			}
			entries, err := s.List()
			if err != nil || len(entries) != 1 {
				t.Fatalf("List = %v, %v; the bad file must still be listed", entries, err)
			}
			if _, err := s.LoadEntry(entries[0]); err == nil {
				t.Errorf("LoadEntry succeeded on a bad file")
			}
		})
	}
}

// snapshot describes a path's type and content, to prove it did not change.
func snapshot(t *testing.T, p string) string {
	t.Helper()
	info, err := os.Lstat(p)
	if err != nil {
		return "missing"
	}
	if !info.Mode().IsRegular() {
		return info.Mode().Type().String()
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return "file " + string(data)
}

func checkOneLineError(t *testing.T, op string, err error, path, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s succeeded, want an error", op)
	}
	msg := err.Error()
	if !strings.Contains(msg, path) || !strings.Contains(msg, want) || strings.Contains(msg, "\n") {
		t.Errorf("%s error = %q, want one line naming %s and containing %q", op, msg, path, want)
	}
	t.Logf("%s: %s", op, msg)
}

// TestUnwritableStore covers a store that cannot be written: the error is
// one line naming a path, and an existing session file is not changed.
// Root ignores permission bits, so the read-only case is skipped as root
// and the others simulate an unwritable directory in ways root cannot
// bypass.
func TestUnwritableStore(t *testing.T) {
	t.Run("parent is a regular file", func(t *testing.T) {
		root := filepath.Join(t.TempDir(), "file")
		os.WriteFile(root, []byte("not a directory"), 0o644)
		s := Open(root)
		_, err := s.Update("a", addTodo("x"))
		checkOneLineError(t, "Update", err, root, "not a directory")
		if _, err := s.Load("a"); err == nil || !strings.Contains(err.Error(), s.Path("a")) {
			t.Errorf("Load = %v, want an error naming the path", err)
		}
		if entries, err := s.List(); err == nil || !strings.Contains(err.Error(), s.Dir) {
			t.Errorf("List = %v, %v; want an error naming the directory", entries, err)
		}
	})
	t.Run("store dir is a file", func(t *testing.T) {
		s := testStore(t)
		os.WriteFile(s.Dir, []byte("x"), 0o644)
		_, err := s.Update("a", addTodo("x"))
		checkOneLineError(t, "Update", err, s.Dir, "not a directory")
		if snapshot(t, s.Dir) != "file x" {
			t.Errorf("store path changed")
		}
	})
	t.Run("lock file cannot be opened", func(t *testing.T) {
		s := testStore(t)
		if _, err := s.Update("a", addTodo("x")); err != nil {
			t.Fatal(err)
		}
		before := snapshot(t, s.Path("a"))
		lock := s.lockPath("a")
		os.Remove(lock)
		os.Mkdir(lock, 0o755)
		_, err := s.Update("a", addTodo("y"))
		checkOneLineError(t, "Update", err, lock, "is a directory")
		if snapshot(t, s.Path("a")) != before {
			t.Errorf("session file changed")
		}
	})
	t.Run("read-only directory", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("root ignores directory permissions; covered by the cases above")
		}
		s := testStore(t)
		if _, err := s.Update("a", addTodo("x")); err != nil {
			t.Fatal(err)
		}
		before := snapshot(t, s.Path("a"))
		os.Chmod(s.Dir, 0o555)
		t.Cleanup(func() { os.Chmod(s.Dir, 0o755) })
		_, err := s.Update("a", addTodo("y"))
		checkOneLineError(t, "Update", err, s.Dir, "permission denied")
		if snapshot(t, s.Path("a")) != before {
			t.Errorf("session file changed")
		}
		_, err = s.Update("b", addTodo("y"))
		checkOneLineError(t, "Update new session", err, s.Dir, "permission denied")
	})
	t.Run("missing directory is created", func(t *testing.T) {
		s := Open(filepath.Join(t.TempDir(), "deep", "er"))
		if _, err := s.Update("a", addTodo("x")); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Load("a"); err != nil {
			t.Fatal(err)
		}
	})
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.json")
	for _, content := range []string{"one", "two"} {
		if err := WriteFileAtomic(p, []byte(content)); err != nil {
			t.Fatal(err)
		}
		if got := snapshot(t, p); got != "file "+content {
			t.Errorf("after write: %s", got)
		}
	}
	if des, _ := os.ReadDir(dir); len(des) != 1 {
		t.Errorf("directory has %d entries, want only the file", len(des))
	}
	err := WriteFileAtomic(filepath.Join(dir, "missing", "f.json"), []byte("x"))
	checkOneLineError(t, "WriteFileAtomic", err, filepath.Join(dir, "missing", "f.json"), "no such file")
}

// TestUpdateClearsStaleTemp checks that a temp file left by a killed writer
// is removed by the next Update, and that a symlink planted under the temp
// name is removed, not followed.
func TestUpdateClearsStaleTemp(t *testing.T) {
	s := testStore(t)
	os.MkdirAll(s.Dir, 0o755)
	tmp := filepath.Join(s.Dir, ".todo-a.json.tmp")
	outside := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(outside, []byte("keep me"), 0o644)
	for _, plant := range []func(){
		func() { os.WriteFile(tmp, []byte(`{"half":`), 0o644) },
		func() { os.Symlink(outside, tmp) },
	} {
		plant()
		if _, err := s.Update("a", addTodo("x")); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Lstat(tmp); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("stale temp file still there: %v", err)
		}
	}
	if snapshot(t, outside) != "file keep me" {
		t.Errorf("symlink target was written")
	}
}

// TestValidSessionIDMatchesPattern checks the hand-written check against
// the rule it implements, written as a regexp, on every byte and on
// random strings.
func TestValidSessionIDMatchesPattern(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z0-9._-]{1,100}$`)
	check := func(id string) {
		want := re.MatchString(id) && id != "." && id != ".."
		if got := ValidSessionID(id) == nil; got != want {
			t.Errorf("ValidSessionID(%q) ok = %v, want %v", id, got, want)
		}
	}
	for c := 0; c < 256; c++ {
		check(string([]byte{byte(c)}))
		check("ab" + string([]byte{byte(c)}))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "aZ09._-/ \x00é\n"
	for i := 0; i < 5000; i++ {
		b := make([]byte, rng.IntN(105))
		for j := range b {
			b[j] = alphabet[rng.IntN(len(alphabet))]
		}
		check(string(b))
	}
}

// A list too large on its own is refused and changes nothing.
func TestUpdateRefusesOversizedList(t *testing.T) {
	st := Open(t.TempDir())
	if _, err := st.Update("s", addTodo("a")); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(st.Path("s"))
	hbefore, _ := os.ReadFile(st.SessionHistoryPath("s"))
	_, err := st.Update("s", func(s *Session) error {
		s.Todos = make([]todolist.Todo, 100)
		for i := range s.Todos {
			s.Todos[i] = todolist.Todo{Content: strings.Repeat("y", 1000), Status: todolist.Pending}
			for j := 0; j < 20; j++ {
				s.Todos[i].Subtasks = append(s.Todos[i].Subtasks, todolist.Subtask{Content: strings.Repeat("z", 1000), Status: todolist.Pending})
			}
		}
		return nil
	})
	if !errors.Is(err, todolist.ErrLimit) {
		t.Errorf("an oversized list: err = %v, want ErrLimit", err)
	}
	if after, _ := os.ReadFile(st.Path("s")); !bytes.Equal(before, after) {
		t.Error("a refused update changed the file")
	}
	if after, _ := os.ReadFile(st.SessionHistoryPath("s")); !bytes.Equal(hbefore, after) {
		t.Error("a refused update changed the history")
	}
}

// A file written by hand is read as it will be saved: derived status and
// ids follow the rules at once, not after an unrelated write.
func TestDecodeNormalizes(t *testing.T) {
	sess, err := Decode([]byte(`{"version":1,"todos":[{"id":"9","content":"a","status":"pending","subtasks":[{"content":"s","status":"completed"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := sess.Todos[0]; got.Status != todolist.Completed || got.ID != "1" || got.Subtasks[0].ID != "1.1" {
		t.Errorf("decoded %+v, want item 1 completed with subtask 1.1", got)
	}
}

// TestStoreRemove: every file the store keeps for a session goes, other
// sessions' files stay, a missing session is fs.ErrNotExist and a bad id
// is refused before anything is touched.
func TestStoreRemove(t *testing.T) {
	s := testStore(t)
	for _, id := range []string{"a", "b"} {
		if _, err := s.Update(id, addTodo("x")); err != nil {
			t.Fatal(err)
		}
		for _, f := range s.sessionFiles(id)[1:] {
			if err := os.WriteFile(f, []byte("{}"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := s.Remove("a"); err != nil {
		t.Fatal(err)
	}
	for _, f := range s.sessionFiles("a") {
		if _, err := os.Lstat(f); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s survived Remove (%v)", f, err)
		}
	}
	for _, f := range s.sessionFiles("b") {
		if _, err := os.Lstat(f); err != nil {
			t.Errorf("%s of another session: %v", f, err)
		}
	}
	if entries, _ := s.List(); len(entries) != 1 || entries[0].ID != "b" {
		t.Errorf("List after Remove = %+v, want only b", entries)
	}
	if err := s.Remove("a"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Remove of a removed session = %v, want fs.ErrNotExist", err)
	}
	if err := s.Remove("../b"); err == nil {
		t.Error("Remove accepted an id outside the store")
	}
	if _, err := s.Load("b"); err != nil {
		t.Errorf("session b after removing a: %v", err)
	}
}

// TestStoreRemoveWaitsForTheLock: a Remove while another writer holds the
// session's lock happens after that writer lets go, never in its middle.
// The lock is held directly: Commit runs its fn once before taking the
// lock, so blocking inside fn would not hold it.
func TestStoreRemoveWaitsForTheLock(t *testing.T) {
	s := testStore(t)
	if _, err := s.Update("a", addTodo("x")); err != nil {
		t.Fatal(err)
	}
	unlock, err := s.lockFile(s.lockPath("a"))
	if err != nil {
		t.Fatal(err)
	}
	removed := make(chan error, 1)
	go func() { removed <- s.Remove("a") }()
	select {
	case err := <-removed:
		t.Fatalf("Remove returned (%v) while another writer held the lock", err)
	case <-time.After(200 * time.Millisecond):
	}
	if _, err := s.Load("a"); err != nil {
		t.Fatalf("the session went while the lock was held: %v", err)
	}
	unlock()
	if err := <-removed; err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load("a"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("session after Remove: %v", err)
	}
}

// TestReadShared: a read that shares the cache's session sees what Load
// sees, a missing file as a new session, and a bad id as an error; the
// session is the one cached while the file is unchanged, and a change
// leaves a session read before it as it was.
func TestReadShared(t *testing.T) {
	s := Open(t.TempDir())
	if _, err := s.ReadShared("../x"); err == nil {
		t.Error("a bad session id was read")
	}
	fresh, err := s.ReadShared("r")
	if err != nil || len(fresh.Todos) != 0 || fresh.Session != "r" {
		t.Fatalf("a missing session: %+v %v", fresh, err)
	}
	if _, err := s.Update("r", func(x *Session) error { x.Todos = todolisttest.Items("a", "b"); return nil }); err != nil {
		t.Fatal(err)
	}
	one, err := s.ReadShared("r")
	if err != nil || len(one.Todos) != 2 {
		t.Fatalf("read: %+v %v", one, err)
	}
	if two, _ := s.ReadShared("r"); two != one {
		t.Error("an unchanged file was not read from the cache")
	}
	loaded, _ := s.Load("r")
	if !todolist.SameTodos(loaded.Todos, one.Todos) || &loaded.Todos[0] == &one.Todos[0] {
		t.Error("Load does not give its own copy of what ReadShared reads")
	}
	if _, err := s.Update("r", func(x *Session) error { x.Todos[0].Status = todolist.Completed; return nil }); err != nil {
		t.Fatal(err)
	}
	after, _ := s.ReadShared("r")
	if one.Todos[0].Status != todolist.Pending || after.Todos[0].Status != todolist.Completed {
		t.Errorf("before the change %s, after %s: want pending, completed", one.Todos[0].Status, after.Todos[0].Status)
	}
}

// TestChangeSharesWhatItKept: after a change to one subtask, the cached
// session shares the other items' subtasks with the one before (nothing
// copied for them), the changed item's are its own, and the caller's
// result is its own: changing it changes nothing the store keeps.
func TestChangeSharesWhatItKept(t *testing.T) {
	s := Open(t.TempDir())
	mk := func() []todolist.Todo {
		l := todolisttest.Items("a", "b", "c")
		for i := range l {
			l[i].Subtasks = []todolist.Subtask{{Content: "x", Status: todolist.Pending}, {Content: "y", Status: todolist.Pending}}
		}
		return l
	}
	if _, err := s.Update("c", func(x *Session) error { x.Todos = mk(); return nil }); err != nil {
		t.Fatal(err)
	}
	// A list with fields todosh does not know takes encoding/json's way,
	// without the items' encodings: its subtasks are compared instead.
	extra := mk()
	extra[2].Extra = todolist.Extra{"priority": []byte(`"high"`)}
	if _, err := s.Update("e", func(x *Session) error { x.Todos = extra; return nil }); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Update("e", func(x *Session) error { return todolist.SetSubtaskStatus(x.Todos, 0, 1, todolist.Completed) }); err != nil || string(got.Todos[2].Extra["priority"]) != `"high"` {
		t.Fatalf("a change to a list with unknown fields: %v", err)
	}
	before, _ := s.ReadShared("c")
	got, err := s.Update("c", func(x *Session) error { return todolist.SetSubtaskStatus(x.Todos, 1, 0, todolist.Completed) })
	if err != nil {
		t.Fatal(err)
	}
	after, _ := s.ReadShared("c")
	if after == before || after.Todos[1].Subtasks[0].Status != todolist.Completed || before.Todos[1].Subtasks[0].Status != todolist.Pending {
		t.Fatalf("the cache after the change: %+v", after.Todos[1])
	}
	for i, shared := range []bool{true, false, true} {
		if same := &after.Todos[i].Subtasks[0] == &before.Todos[i].Subtasks[0]; same != shared {
			t.Errorf("item %d: subtasks shared with the session before: %v, want %v", i+1, same, shared)
		}
	}
	// The caller's list shares its subtask arrays with the cache's (copy
	// on write): a change made the way every writer makes one (todolist.OwnSubtasks
	// first) reaches neither the cache nor the store.
	for i := range got.Todos {
		if &got.Todos[i].Subtasks[0] != &after.Todos[i].Subtasks[0] {
			t.Errorf("item %d: the caller's subtasks are not the cache's", i+1)
		}
		todolist.OwnSubtasks(&got.Todos[i])
		got.Todos[i].Subtasks[0].Content = "changed by the caller"
	}
	if after.Todos[0].Subtasks[0].Content != "x" || before.Todos[1].Subtasks[0].Content != "x" {
		t.Errorf("the caller's change reached the cache: %+v", after.Todos)
	}
	if again, _ := s.Load("c"); again.Todos[0].Subtasks[0].Content != "x" || again.Todos[1].Subtasks[0].Content != "x" {
		t.Errorf("the caller's change reached the store: %+v", again.Todos)
	}
}
