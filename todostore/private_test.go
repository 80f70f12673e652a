package todostore

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/todosh/todosh/internal/testenv"
	"github.com/todosh/todosh/todolist"
)

func perm(t *testing.T, p string) os.FileMode {
	t.Helper()
	info, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return info.Mode().Perm()
}

// TestPrivateModes: a new store is 0700 and its files 0600 whatever the
// umask; a mode the user narrowed is kept; a wider old file or directory
// is narrowed at the next write, and never widened. (A file others may
// write is refused instead: TestPlantedSessionFiles.)
func TestPrivateModes(t *testing.T) {
	testenv.NeedModes(t)
	old := testenv.Umask(0)
	defer testenv.Umask(old)
	s := testStore(t)
	if _, err := s.Update("a", addTodo("x")); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{s.Root: 0o700, s.Dir: 0o700, s.Path("a"): 0o600, s.lockPath("a"): 0o600} {
		if got := perm(t, p); got != want {
			t.Errorf("%s: mode %v, want %v", p, got, want)
		}
	}
	for _, tc := range []struct{ before, after os.FileMode }{{0o400, 0o400}, {0o644, 0o600}, {0o640, 0o600}, {0o200, 0o200}} {
		if err := os.Chmod(s.Path("a"), tc.before); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Update("a", addTodo("y")); err != nil {
			t.Fatal(err)
		}
		if got := perm(t, s.Path("a")); got != tc.after {
			t.Errorf("file %v before a write is %v after it, want %v", tc.before, got, tc.after)
		}
	}
	os.Chmod(s.Dir, 0o755)
	os.Chmod(s.Root, 0o777)
	if _, err := s.Update("a", addTodo("z")); err != nil {
		t.Fatal(err)
	}
	if perm(t, s.Dir) != 0o700 || perm(t, s.Root) != 0o700 {
		t.Errorf("directories %v and %v after a write, want 0700", perm(t, s.Root), perm(t, s.Dir))
	}
	// WriteFileAtomic (conversations) follows the same rule.
	conv := filepath.Join(s.Dir, "conv-a.json")
	if err := WriteFileAtomic(conv, []byte("{}")); err != nil || perm(t, conv) != 0o600 {
		t.Errorf("WriteFileAtomic: %v, mode %v", err, perm(t, conv))
	}
}

// TestStoreOwnedByAnother: a store directory of another uid is refused
// with one line, and nothing is written into it.
func TestStoreOwnedByAnother(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a directory another user's")
	}
	s := testStore(t)
	if err := os.MkdirAll(s.Dir, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(s.Dir, 0o777)
	if err := os.Chown(s.Dir, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	_, err := s.Update("a", addTodo("secret"))
	checkOneLineError(t, "Update", err, s.Dir, "owned by uid 65534")
	if entries, _ := os.ReadDir(s.Dir); len(entries) != 0 {
		t.Errorf("wrote %d files into another user's directory", len(entries))
	}
}

// TestSymlinkedStore: a todos directory that is the user's own symlink to
// the user's own directory is used; one pointing at another user's
// directory is refused.
func TestSymlinkedStore(t *testing.T) {
	s := testStore(t)
	os.MkdirAll(s.Root, 0o700)
	target := filepath.Join(t.TempDir(), "real")
	os.Mkdir(target, 0o755)
	if err := os.Symlink(target, s.Dir); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update("a", addTodo("x")); err != nil {
		t.Fatalf("own symlink to own directory: %v", err)
	}
	if perm(t, target) != 0o700 {
		t.Errorf("target mode %v, want 0700", perm(t, target))
	}
	if os.Geteuid() != 0 {
		return
	}
	os.Chown(target, 65534, 65534)
	_, err := s.Update("a", addTodo("y"))
	checkOneLineError(t, "Update", err, s.Dir, "owned by uid 65534")
	os.Chown(target, 0, 0)
	if err := os.Lchown(s.Dir, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	_, err = s.Update("a", addTodo("y"))
	checkOneLineError(t, "Update", err, s.Dir, "symlink owned by uid 65534")
}

// TestPlantedLockAndTemp: a symlink planted as the lock file is refused,
// not followed (no file appears at its target); one planted as the temp
// file is removed, never written through; a directory in the temp file's
// place is reported.
func TestPlantedLockAndTemp(t *testing.T) {
	s := testStore(t)
	if _, err := s.Update("a", addTodo("x")); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(t.TempDir(), "victim")
	os.Remove(s.lockPath("b"))
	if err := os.Symlink(victim, s.lockPath("b")); err != nil {
		t.Fatal(err)
	}
	_, err := s.Update("b", addTodo("x"))
	checkOneLineError(t, "Update", err, s.lockPath("b"), "symlink")
	if _, err := os.Lstat(victim); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the planted lock symlink was followed: %v", err)
	}

	tmp := filepath.Join(s.Dir, ".todo-a.json.tmp")
	if err := os.Symlink(victim, tmp); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update("a", addTodo("y")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(victim); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the planted temp symlink was followed: %v", err)
	}

	if err := os.MkdirAll(filepath.Join(tmp, "inside"), 0o700); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, s.Path("a"))
	_, err = s.Update("a", addTodo("z"))
	checkOneLineError(t, "Update", err, tmp, "a directory")
	if !strings.Contains(err.Error(), "move it aside") || strings.Count(err.Error(), tmp) != 1 {
		t.Errorf("collision error %q: want the name once and the fix", err)
	}
	if snapshot(t, s.Path("a")) != before {
		t.Errorf("the session file changed")
	}
}

// TestSweepTemps: temp files a killed writer left behind, of any kind,
// are removed at the first write; a fresh one or one a writer holds stays.
func TestSweepTemps(t *testing.T) {
	s := testStore(t)
	os.MkdirAll(s.Dir, 0o700)
	old := time.Now().Add(-time.Hour)
	stale := []string{".todo-x.json.tmp", ".conv-x.json.123456.tmp", ".history.json.9.tmp"}
	for _, name := range stale {
		p := filepath.Join(s.Dir, name)
		os.WriteFile(p, []byte("partial"), 0o600)
		os.Chtimes(p, old, old)
	}
	fresh := filepath.Join(s.Dir, ".conv-y.json.1.tmp")
	os.WriteFile(fresh, nil, 0o600)
	held := filepath.Join(s.Dir, ".conv-z.json.1.tmp")
	os.WriteFile(held, nil, 0o600)
	os.Chtimes(held, old, old)
	f, err := os.Open(held)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := waitLock(f); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update("a", addTodo("x")); err != nil {
		t.Fatal(err)
	}
	for _, name := range stale {
		if _, err := os.Lstat(filepath.Join(s.Dir, name)); err == nil {
			t.Errorf("%s was left", name)
		}
	}
	for _, p := range []string{fresh, held} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed: a writer may still use it", p)
		}
	}
}

// TestUnknownFieldsKept: fields this todosh does not know, at every level,
// survive a rewrite byte for byte.
func TestUnknownFieldsKept(t *testing.T) {
	s := testStore(t)
	writeRaw(t, s, "a", []byte(`{"version":1,"session":"a","future":{"x":[1,2]},"todos":[
		{"id":"1","content":"one","status":"pending","priority":"high","notes":"n\u00e9"},
		{"id":"2","content":"two","status":"pending","subtasks":[{"id":"2.1","content":"s","status":"pending","weight":3.50}]}]}`))
	if _, err := s.Update("a", func(sess *Session) error {
		if err := todolist.SetSubtaskStatus(sess.Todos, 1, 0, todolist.Completed); err != nil {
			return err
		}
		var err error
		sess.Todos, err = todolist.InsertTodo(sess.Todos, 0, todolist.Todo{Content: "new"})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(s.Path("a"))
	for _, want := range []string{`"future": {`, `"priority": "high"`, `"notes": "n\u00e9"`, `"weight": 3.50`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("rewrite lost %s:\n%s", want, data)
		}
	}
	if strings.Contains(string(data), "createdAt") {
		t.Errorf("a missing createdAt was written:\n%s", data)
	}
	sess, err := s.Load("a")
	if err != nil || sess.Todos[1].Extra["priority"] == nil || sess.Todos[2].Subtasks[0].Status != todolist.Completed {
		t.Errorf("reload: %v %+v", err, sess)
	}
}

// TestDuplicateKeys: a file that gives a key twice is reported, at any
// level, instead of silently read with the last value.
func TestDuplicateKeys(t *testing.T) {
	for _, data := range []string{
		`{"version":1,"todos":[{"content":"a","status":"pending"}],"todos":[]}`,
		`{"version":1,"todos":[{"content":"a","status":"pending","status":"completed"}]}`,
		`{"version":1,"todos":[{"content":"a","Content":"b","status":"pending"}]}`,
		`{"version":1,"todos":[{"content":"a","status":"pending","subtasks":[{"content":"s","content":"t"}]}]}`,
		`[{"content":"a","status":"pending","x":1,"x":2}]`,
	} {
		_, err := Decode([]byte(data))
		if err == nil || !strings.Contains(err.Error(), "appears twice") {
			t.Errorf("Decode(%s) = %v, want a duplicate key error", data, err)
		}
	}
}

// TestLockWait: waiting for another holder of the lock is said after a
// moment, and given up after the limit with one line naming the holder.
func TestLockWait(t *testing.T) {
	s := testStore(t)
	if _, err := s.Update("a", addTodo("x")); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(s.lockPath("a"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := waitLock(f); err != nil {
		t.Fatal(err)
	}
	var said []string
	s.OnLockWait = func(msg string) { said = append(said, msg) }
	s.LockTimeout = 1500 * time.Millisecond
	_, err = s.Update("a", addTodo("y"))
	checkOneLineError(t, "Update", err, s.lockPath("a"), "still locked by")
	if len(said) != 1 || !strings.Contains(said[0], "waiting for") {
		t.Errorf("said %q, want one waiting notice", said)
	}
	if runtime.GOOS == "linux" && !strings.Contains(err.Error(), "pid ") {
		t.Errorf("holder not named: %v", err)
	}
	// Released, the next write goes through and the abandoned waiter has
	// not kept the lock.
	unlockFile(f)
	s.LockTimeout = time.Minute
	if _, err := s.Update("a", addTodo("z")); err != nil {
		t.Fatal(err)
	}
}

// symlinkMessage is the one message for a symlink where todosh keeps a
// file of its own: the session, its history and its lock alike.
const symlinkMessage = "it is a symlink, which todosh never makes: remove it"

// TestPlantedSessionFiles is issue 16's fifth point for the store: a
// symlink at a session's file or history is refused for reading as for
// writing, with the lock's message (never followed: its target is not read
// into history, nor written); a session file or history that other users
// may write, or that another user owns, is refused with a message saying
// what to check, and nothing is written.
func TestPlantedSessionFiles(t *testing.T) {
	planted, err := Encode(&Session{Version: todolist.FormatVersion, Todos: []todolist.Todo{{Content: "planted", Status: todolist.Pending}}})
	if err != nil {
		t.Fatal(err)
	}
	plantedHist := []byte(`{"n":1,"at":"2026-11-21T22:33:44Z","by":"you","what":"added planted","todos":[{"id":"1","content":"planted","status":"pending"}]}` + "\n")
	// own writes one good change to session a and returns the store.
	own := func(t *testing.T) *Store {
		s := testStore(t)
		if _, err := s.Update("a", addTodo("mine")); err != nil {
			t.Fatal(err)
		}
		return s
	}
	// refused checks that every way in to session a refuses with want,
	// naming path, and that nothing of it changed.
	refused := func(t *testing.T, s *Store, path, want string) {
		t.Helper()
		before := snapshot(t, s.Path("a")) + snapshot(t, s.SessionHistoryPath("a"))
		if path == s.Path("a") {
			_, err := s.Load("a")
			checkOneLineError(t, "Load", err, path, want)
		} else {
			_, err := s.History("a")
			checkOneLineError(t, "History", err, path, want)
			_, _, err = s.Restore("a", 1, todolist.ByYou)
			checkOneLineError(t, "Restore", err, path, want)
		}
		_, err := s.Update("a", addTodo("more"))
		checkOneLineError(t, "Update", err, path, want)
		if after := snapshot(t, s.Path("a")) + snapshot(t, s.SessionHistoryPath("a")); after != before {
			t.Errorf("files changed:\n%s\nbecame\n%s", before, after)
		}
	}
	t.Run("session file is a symlink", func(t *testing.T) {
		s := own(t)
		target := filepath.Join(t.TempDir(), "elsewhere.json")
		os.WriteFile(target, planted, 0o600)
		os.Remove(s.Path("a"))
		os.Symlink(target, s.Path("a"))
		refused(t, s, s.Path("a"), symlinkMessage)
		if data, _ := os.ReadFile(s.SessionHistoryPath("a")); bytes.Contains(data, []byte("planted")) {
			t.Errorf("the symlink's target was copied into the history")
		}
	})
	t.Run("history is a symlink", func(t *testing.T) {
		s := own(t)
		target := filepath.Join(t.TempDir(), "elsewhere.jsonl")
		os.WriteFile(target, plantedHist, 0o600)
		os.Remove(s.SessionHistoryPath("a"))
		os.Symlink(target, s.SessionHistoryPath("a"))
		refused(t, s, s.SessionHistoryPath("a"), symlinkMessage)
		if data, _ := os.ReadFile(target); !bytes.Equal(data, plantedHist) {
			t.Errorf("the symlink's target was written")
		}
	})
	t.Run("history writable by others", func(t *testing.T) {
		s := own(t)
		os.WriteFile(s.SessionHistoryPath("a"), plantedHist, 0o600)
		os.Chmod(s.SessionHistoryPath("a"), 0o666)
		refused(t, s, s.SessionHistoryPath("a"), "writable by other users (mode 0666)")
	})
	t.Run("session file writable by others", func(t *testing.T) {
		s := own(t)
		os.Chmod(s.Path("a"), 0o646)
		refused(t, s, s.Path("a"), "writable by other users (mode 0646)")
	})
	t.Run("history of another user", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("needs root to make a file another user's")
		}
		s := own(t)
		os.Chown(s.SessionHistoryPath("a"), 65534, 65534)
		refused(t, s, s.SessionHistoryPath("a"), "owned by uid 65534")
	})
	t.Run("todos directory writable by others", func(t *testing.T) {
		// The directory is narrowed at the next write, as ever; what
		// others could put in it meanwhile is theirs, and refused above.
		s := own(t)
		os.Chmod(s.Dir, 0o777)
		if _, err := s.Update("a", addTodo("more")); err != nil {
			t.Fatal(err)
		}
		if got := perm(t, s.Dir); got != 0o700 {
			t.Errorf("todos directory is %v after a write, want 0700", got)
		}
	})
}
