package todostore

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/todosh/todosh/todolist/todolisttest"

	"github.com/fsnotify/fsnotify"
	"github.com/todosh/todosh/todolist"
	"github.com/todosh/todosh/todoview"
)

// Waits are generous: the tests assert that a change arrives, not how
// fast (the latency is logged as a figure instead).
const (
	arrives = 5 * time.Second
	// silence is how long to wait before concluding that nothing more
	// comes: longer than every debounce and confirm delay together.
	silence = 3 * (maxDelay + confirmDelay)
)

// watched opens two Stores on one root, as two processes would, and
// watches session id from the first one.
func watched(t *testing.T, id string) (mine, theirs *Store, w *Watcher) {
	t.Helper()
	mine = testStore(t)
	theirs = Open(mine.Root)
	w, err := mine.Watch(id)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := w.Close(); err != nil {
			t.Error(err)
		}
	})
	return mine, theirs, w
}

func nextChange(t *testing.T, w *Watcher) Change {
	t.Helper()
	select {
	case c, ok := <-w.Changes():
		if !ok {
			t.Fatal("Changes closed")
		}
		return c
	case <-time.After(arrives):
		t.Fatalf("no change within %v", arrives)
	}
	panic("unreachable")
}

func noChange(t *testing.T, w *Watcher) {
	t.Helper()
	select {
	case c := <-w.Changes():
		t.Fatalf("unexpected change: %+v", describe(c))
	case <-time.After(silence):
	}
}

// describe renders a change for failure messages.
func describe(c Change) string {
	if c.Err != nil {
		return "error: " + c.Err.Error()
	}
	return "list:\n" + todoview.FormatList(c.Session.Todos)
}

func wantList(t *testing.T, c Change, want ...string) {
	t.Helper()
	if c.Err != nil || c.Session == nil {
		t.Fatalf("got %s, want a list", describe(c))
	}
	if got := todolisttest.Texts(c.Session.Todos); !slices.Equal(got, want) {
		t.Fatalf("list = %q, want %q", got, want)
	}
}

func TestWatchOtherWriterAndLatency(t *testing.T) {
	t.Parallel()
	mine, theirs, w := watched(t, "s")
	if _, err := mine.Update("s", addTodo("mine")); err != nil {
		t.Fatal(err)
	}
	var lat []time.Duration
	want := []string{"mine"}
	for i := 0; i < 10; i++ {
		text := fmt.Sprintf("theirs %d", i)
		if _, err := theirs.Update("s", addTodo(text)); err != nil {
			t.Fatal(err)
		}
		wrote := time.Now()
		c := nextChange(t, w)
		lat = append(lat, time.Since(wrote))
		want = append(want, text)
		wantList(t, c, want...)
	}
	slices.Sort(lat)
	t.Logf("change delivery latency over %d writes: min %v, median %v, max %v", len(lat), lat[0], lat[len(lat)/2], lat[len(lat)-1])
	noChange(t, w)
}

func TestWatchOwnWritesNotEchoed(t *testing.T) {
	t.Parallel()
	mine, _, w := watched(t, "s")
	var afterWrite int
	prev := mine.AfterWrite
	mine.AfterWrite = func(id string, data []byte) { afterWrite++; prev(id, data) }
	for i := 0; i < 5; i++ {
		if _, err := mine.Update("s", addTodo(fmt.Sprint("own ", i))); err != nil {
			t.Fatal(err)
		}
	}
	noChange(t, w)
	if afterWrite != 5 {
		t.Errorf("a hook set after Watch saw %d writes, want 5", afterWrite)
	}
}

func TestWatchChainsAfterWrite(t *testing.T) {
	t.Parallel()
	s := testStore(t)
	var got []string
	s.AfterWrite = func(id string, _ []byte) { got = append(got, id) }
	w, err := s.Watch("s")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	s.Update("s", addTodo("x"))
	if !slices.Equal(got, []string{"s"}) {
		t.Errorf("earlier AfterWrite hook saw %v", got)
	}
}

func TestWatchBurst(t *testing.T) {
	t.Parallel()
	_, theirs, w := watched(t, "s")
	const writes = 50
	for i := 0; i < writes; i++ {
		if _, err := theirs.Update("s", addTodo(fmt.Sprint("burst ", i))); err != nil {
			t.Fatal(err)
		}
	}
	final, _ := theirs.Load("s")
	var n int
	var last Change
	for {
		select {
		case c := <-w.Changes():
			n++
			last = c
			continue
		case <-time.After(silence):
		}
		break
	}
	if n == 0 {
		t.Fatal("no change after a burst")
	}
	wantList(t, last, todolisttest.Texts(final.Todos)...)
	t.Logf("%d writes in a burst gave %d changes", writes, n)
}

func TestWatchInvalidThenFixed(t *testing.T) {
	t.Parallel()
	mine, theirs, w := watched(t, "s")
	if _, err := theirs.Update("s", addTodo("good")); err != nil {
		t.Fatal(err)
	}
	wantList(t, nextChange(t, w), "good")

	p := mine.Path("s")
	if err := WriteFileAtomic(p, []byte(`{"version":1,"todos":[{"content":`)); err != nil {
		t.Fatal(err)
	}
	c := nextChange(t, w)
	var ce *CorruptError
	if !errors.As(c.Err, &ce) || ce.Path != p || strings.Contains(c.Err.Error(), "\n") {
		t.Fatalf("got %s, want a one-line *CorruptError naming %s", describe(c), p)
	}
	t.Logf("reported: %v", c.Err)
	// Still bad, differently: not reported again.
	os.WriteFile(p, []byte("still not json"), 0o644)
	noChange(t, w)
	// Nothing is written over the bad file.
	bad, _ := os.ReadFile(p)
	if _, err := mine.Update("s", addTodo("lost?")); !errors.As(err, &ce) {
		t.Fatalf("Update over a bad file: %v, want *CorruptError", err)
	}
	if now, _ := os.ReadFile(p); string(now) != string(bad) {
		t.Fatalf("bad file was overwritten")
	}
	// Fixed by someone: the fixed list arrives.
	data, _ := Encode(&Session{Version: 1, Session: "s", Todos: todolisttest.Items("good", "fixed")})
	if err := WriteFileAtomic(p, data); err != nil {
		t.Fatal(err)
	}
	wantList(t, nextChange(t, w), "good", "fixed")
	// And it is bad again: reported again.
	os.WriteFile(p, nil, 0o644)
	if c := nextChange(t, w); c.Err == nil {
		t.Fatalf("got %s, want an error", describe(c))
	}
}

// TestWatchNonAtomicWriter covers writers that truncate and rewrite the
// file in place (os.WriteFile): the empty file seen for a moment is not
// reported as corrupt.
func TestWatchNonAtomicWriter(t *testing.T) {
	t.Parallel()
	mine, _, w := watched(t, "s")
	for i := 1; i <= 5; i++ {
		data, _ := Encode(&Session{Version: 1, Session: "s", Todos: todolisttest.Items(strings.Repeat("x", i))})
		if err := os.WriteFile(mine.Path("s"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		wantList(t, nextChange(t, w), strings.Repeat("x", i))
	}
	noChange(t, w)
}

func TestWatchDeleteThenCreate(t *testing.T) {
	t.Parallel()
	mine, theirs, w := watched(t, "s")
	theirs.Update("s", addTodo("first"))
	wantList(t, nextChange(t, w), "first")
	p := mine.Path("s")

	// Deleted and recreated at once (a sync tool): the new list arrives,
	// perhaps after the removal on a slow machine.
	os.Remove(p)
	data, _ := Encode(&Session{Version: 1, Session: "s", Todos: todolisttest.Items("recreated")})
	WriteFileAtomic(p, data)
	c := nextChange(t, w)
	if c.Err != nil {
		if !errors.Is(c.Err, fs.ErrNotExist) {
			t.Fatalf("got %s, want the removal or the new list", describe(c))
		}
		c = nextChange(t, w)
	}
	wantList(t, c, "recreated")

	// Deleted for good: reported once, then the new file arrives.
	os.Remove(p)
	c = nextChange(t, w)
	if !errors.Is(c.Err, fs.ErrNotExist) || !strings.Contains(c.Err.Error(), p) {
		t.Fatalf("got %s, want the removal naming %s", describe(c), p)
	}
	noChange(t, w)
	theirs.Update("s", addTodo("new"))
	wantList(t, nextChange(t, w), "new")
}

func TestWatchRenameOnSave(t *testing.T) {
	t.Parallel()
	mine, theirs, w := watched(t, "s")
	theirs.Update("s", addTodo("orig"))
	wantList(t, nextChange(t, w), "orig")
	p := mine.Path("s")

	// An editor writing a sibling and renaming it over the file.
	data, _ := Encode(&Session{Version: 1, Session: "s", Todos: todolisttest.Items("orig", "edited")})
	os.WriteFile(p+".swp", data, 0o644)
	os.Rename(p+".swp", p)
	wantList(t, nextChange(t, w), "orig", "edited")

	// vim's backupcopy=no: move the file to a backup, write a new one.
	data, _ = Encode(&Session{Version: 1, Session: "s", Todos: todolisttest.Items("vim")})
	os.Rename(p, p+"~")
	os.WriteFile(p, data, 0o644)
	c := nextChange(t, w)
	if c.Err != nil { // a very slow machine may see the gap
		c = nextChange(t, w)
	}
	wantList(t, c, "vim")

	// Other files in the directory are not this session.
	theirs.Update("other", addTodo("elsewhere"))
	os.WriteFile(filepath.Join(mine.Dir, "notes.txt"), []byte("x"), 0o644)
	noChange(t, w)
}

// TestWatchOverflowRescans injects the kernel's queue overflow: events
// were lost, so the file is read again and its change delivered.
func TestWatchOverflowRescans(t *testing.T) {
	t.Parallel()
	s := testStore(t)
	os.MkdirAll(s.Dir, 0o755)
	events, errs := make(chan fsnotify.Event), make(chan error)
	w := s.watch("s", events, errs, func() error { return nil })
	defer w.Close()
	other := Open(s.Root)
	other.Update("s", addTodo("unseen")) // no event sent
	errs <- fsnotify.ErrEventOverflow
	wantList(t, nextChange(t, w), "unseen")
	// An event for another name is ignored; one for ours is not.
	other.Update("s", addTodo("second"))
	events <- fsnotify.Event{Name: filepath.Join(s.Dir, "todo-t.json"), Op: fsnotify.Write}
	noChange(t, w)
	events <- fsnotify.Event{Name: s.Path("s"), Op: fsnotify.Chmod}
	noChange(t, w)
	events <- fsnotify.Event{Name: s.Path("s"), Op: fsnotify.Rename}
	wantList(t, nextChange(t, w), "unseen", "second")
	// Another watch error is reported, and the file looked at.
	errs <- errors.New("boom")
	if c := nextChange(t, w); c.Err == nil || !strings.Contains(c.Err.Error(), "boom") {
		t.Fatalf("got %s, want the watch error", describe(c))
	}
}

func TestWatchDirectoryRemoved(t *testing.T) {
	t.Parallel()
	mine, _, w := watched(t, "s")
	if err := os.RemoveAll(mine.Dir); err != nil {
		t.Fatal(err)
	}
	c := nextChange(t, w)
	if c.Err == nil || !strings.Contains(c.Err.Error(), "live sync stopped") {
		t.Fatalf("got %s, want the loss of the directory", describe(c))
	}
}

func TestWatchSetup(t *testing.T) {
	t.Parallel()
	s := Open(filepath.Join(t.TempDir(), "new"))
	w, err := s.Watch("s")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.Dir); err != nil {
		t.Errorf("Watch did not create the directory: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, ok := <-w.Changes(); ok {
		t.Errorf("Changes not closed")
	}
	s.Update("s", addTodo("after close")) // the chained hook is inert now

	if _, err := s.Watch("../x"); err == nil {
		t.Error("Watch accepted a bad id")
	}
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o644)
	if _, err := Open(file).Watch("s"); err == nil || !strings.Contains(err.Error(), file) {
		t.Errorf("Watch under a regular file: %v", err)
	}
}

// TestWatchStartsOnBadFile: a file that is bad when watching starts was
// reported by the caller's Load; it is reported again only after it was
// fixed and broke again, and its fix is delivered.
func TestWatchStartsOnBadFile(t *testing.T) {
	t.Parallel()
	s := testStore(t)
	p := writeRaw(t, s, "s", []byte("{"))
	w, err := s.Watch("s")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	os.WriteFile(p, []byte("{{"), 0o644)
	noChange(t, w)
	data, _ := Encode(&Session{Version: 1, Todos: todolisttest.Items("ok")})
	WriteFileAtomic(p, data)
	wantList(t, nextChange(t, w), "ok")
}

// runSyncPeer is one of two shells on one session: it adds items while
// following the other's changes through a Watcher, then waits until its
// view holds every item of both and prints the view's digest.
// Args: root id peer ops total.
func runSyncPeer(args []string) error {
	s := Open(args[0])
	id := args[1]
	ops, _ := strconv.Atoi(args[3])
	total, _ := strconv.Atoi(args[4])
	w, err := s.Watch(id)
	if err != nil {
		return err
	}
	defer w.Close()
	view, err := s.LoadOrNew(id)
	if err != nil {
		return err
	}
	follow := func(c Change) error {
		if c.Err != nil {
			return c.Err
		}
		view = c.Session
		return nil
	}
	rng := rand.New(rand.NewPCG(uint64(len(args[2])), uint64(time.Now().UnixNano())))
	for i := 0; i < ops; i++ {
		sess, err := s.Update(id, addTodo(fmt.Sprintf("peer %s op %d", args[2], i)))
		if err != nil {
			return err
		}
		view = sess
		time.Sleep(time.Duration(rng.IntN(3000)) * time.Microsecond)
		select {
		case c := <-w.Changes():
			if err := follow(c); err != nil {
				return err
			}
		default:
		}
	}
	deadline := time.After(20 * time.Second)
	for len(view.Todos) < total {
		select {
		case c := <-w.Changes():
			if err := follow(c); err != nil {
				return err
			}
		case <-deadline:
			return fmt.Errorf("view has %d of %d items", len(view.Todos), total)
		}
	}
	fmt.Println(todosDigest(view.Todos))
	return nil
}

// todosDigest identifies a list's content, for comparing views.
func todosDigest(todos []todolist.Todo) string {
	data, _ := json.Marshal(todos)
	return fmt.Sprintf("%d %x", len(todos), sha256.Sum256(data))
}

// TestTwoShellsOneSession runs two processes editing one session at once,
// each following the other through its watcher: no change is lost, and
// both end up showing the list that is on disk.
func TestTwoShellsOneSession(t *testing.T) {
	t.Parallel()
	const ops = 40
	s := testStore(t)
	os.MkdirAll(s.Dir, 0o755)
	var outs [2]*bufio.Scanner
	var cmds [2]interface{ Wait() error }
	for p := 0; p < 2; p++ {
		cmd := helper("syncpeer", s.Root, "shared", strings.Repeat("x", p+1), strconv.Itoa(ops), strconv.Itoa(2*ops))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		outs[p], cmds[p] = bufio.NewScanner(out), cmd
	}
	var views [2]string
	for p := 0; p < 2; p++ {
		if outs[p].Scan() {
			views[p] = outs[p].Text()
		}
		if err := cmds[p].Wait(); err != nil {
			t.Fatalf("peer %d: %v", p, err)
		}
	}
	sess, err := s.Load("shared")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, todo := range sess.Todos {
		seen[todo.Content] = true
	}
	for p := 0; p < 2; p++ {
		for i := 0; i < ops; i++ {
			if name := fmt.Sprintf("peer %s op %d", strings.Repeat("x", p+1), i); !seen[name] {
				t.Errorf("lost: %s", name)
			}
		}
	}
	want := todosDigest(sess.Todos)
	for p, v := range views {
		if v != want {
			t.Errorf("peer %d shows %q, the file is %q", p, v, want)
		}
	}
}
