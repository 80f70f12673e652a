package commands

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/todostore"
)

// fixedNow is the clock of every test: ages and archive times are stable.
var fixedNow = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

const testSession = "20261121-120000-test"

// newTestEnv returns an Env on a fresh store in a temp dir, with a fixed
// clock, writing into out.
func newTestEnv(t testing.TB) (*Env, *bytes.Buffer) {
	t.Helper()
	store := todostore.Open(t.TempDir())
	store.Now = func() time.Time { return fixedNow }
	var out bytes.Buffer
	return &Env{
		Store:     store,
		SessionID: testSession,
		Cwd:       "/work/project",
		Out:       &out,
		Err:       &out,
		Now:       func() time.Time { return fixedNow },
	}, &out
}

// parseSpec builds todos from a compact spec: items separated by ";",
// each with a status mark (+ completed, > in progress, - pending,
// x cancelled) and subtasks after "|" ("[x]" done, "[ ]" open):
// "+one;>two|[x]a|[ ]b;-three".
func parseSpec(t testing.TB, spec string) []todolist.Todo {
	t.Helper()
	var todos []todolist.Todo
	if spec == "" {
		return []todolist.Todo{}
	}
	marks := map[byte]todolist.Status{'+': todolist.Completed, '>': todolist.InProgress, '-': todolist.Pending, 'x': todolist.Cancelled}
	for _, item := range strings.Split(spec, ";") {
		parts := strings.Split(item, "|")
		st, ok := marks[parts[0][0]]
		if !ok {
			t.Fatalf("bad spec item %q", item)
		}
		td := todolist.Todo{Content: parts[0][1:], Status: st}
		for _, s := range parts[1:] {
			sub := todolist.Subtask{Content: s[3:], Status: todolist.Pending}
			if strings.HasPrefix(s, "[x]") {
				sub.Status = todolist.Completed
			}
			td.Subtasks = append(td.Subtasks, sub)
		}
		todos = append(todos, td)
	}
	todolist.Normalize(todos)
	return todos
}

// writeSession writes a session file directly (no lock, no fsync: test
// setup) and sets its modification time to fixedNow-ago.
func writeSession(t testing.TB, store *todostore.Store, id, cwd string, todos []todolist.Todo, ago time.Duration) {
	t.Helper()
	sess := &todostore.Session{Version: todolist.FormatVersion, Session: id, CreatedAt: fixedNow.Add(-ago), UpdatedAt: fixedNow.Add(-ago), Cwd: cwd, Todos: todos}
	data, err := todostore.Encode(sess)
	if err != nil {
		t.Fatal(err)
	}
	writeRaw(t, store, id, data, ago)
}

// writeRaw writes any bytes as session id's file, with mtime fixedNow-ago.
func writeRaw(t testing.TB, store *todostore.Store, id string, data []byte, ago time.Duration) {
	t.Helper()
	if err := os.MkdirAll(store.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := store.Path(id)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	touch(t, path, ago)
}

func touch(t testing.TB, path string, ago time.Duration) {
	t.Helper()
	when := fixedNow.Add(-ago)
	if err := os.Chtimes(path, when, when); err != nil {
		t.Fatal(err)
	}
}

// snapshotStore returns every file under root with its bytes, except lock
// files: they are created empty by the store's lock and hold no data.
func snapshotStore(t testing.TB, root string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if info.IsDir() {
			files[rel+"/"] = ""
			return nil
		}
		if strings.HasSuffix(path, ".lock") {
			return nil
		}
		data, err := os.ReadFile(path)
		files[rel] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// diffSnapshots names the files that differ between two snapshots.
func diffSnapshots(a, b map[string]string) []string {
	var diff []string
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			diff = append(diff, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			diff = append(diff, k)
		}
	}
	sort.Strings(diff)
	return diff
}

func mustLoad(t testing.TB, env *Env) *todostore.Session {
	t.Helper()
	sess, err := env.Store.LoadOrNew(env.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	return sess
}
