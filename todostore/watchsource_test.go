package todostore

import (
	"os"
	"strings"
	"testing"

	"github.com/todosh/todosh/todolist/todolisttest"
)

// TestWatchPoller runs the Watcher on the poller macOS uses (pollSource),
// here on Linux: another process's change, an editor's rename and an
// in-place write arrive, own writes do not, and the directory's removal
// is said once.
func TestWatchPoller(t *testing.T) {
	t.Parallel()
	mine := testStore(t)
	mine.watchSource = pollSource
	theirs := Open(mine.Root)
	w, err := mine.Watch("s")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()

	if _, err := mine.Update("s", addTodo("mine")); err != nil {
		t.Fatal(err)
	}
	noChange(t, w)
	if _, err := theirs.Update("s", addTodo("theirs")); err != nil {
		t.Fatal(err)
	}
	wantList(t, nextChange(t, w), "mine", "theirs")

	p := mine.Path("s")
	data, _ := Encode(&Session{Version: 1, Session: "s", Todos: todolisttest.Items("edited")})
	os.WriteFile(p+".swp", data, 0o600)
	os.Rename(p+".swp", p)
	wantList(t, nextChange(t, w), "edited")

	data, _ = Encode(&Session{Version: 1, Session: "s", Todos: todolisttest.Items("in place, longer")})
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	wantList(t, nextChange(t, w), "in place, longer")

	theirs.Update("other", addTodo("elsewhere"))
	noChange(t, w)

	if err := os.RemoveAll(mine.Dir); err != nil {
		t.Fatal(err)
	}
	if c := nextChange(t, w); c.Err == nil || !strings.Contains(c.Err.Error(), "live sync stopped") {
		t.Fatalf("got %s, want the loss of the directory", describe(c))
	}
}

// TestPollSourceMissingDir: the poller refuses a directory that is not
// there, as fsnotify does.
func TestPollSourceMissingDir(t *testing.T) {
	dir := t.TempDir() + "/none"
	if _, _, _, err := pollSource(dir, dir+"/todo-s.json"); err == nil || !strings.Contains(err.Error(), dir) {
		t.Fatalf("err %v, want one naming %s", err, dir)
	}
}
