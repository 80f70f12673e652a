package commands

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/todosh/todosh/todostore"
)

// copySavedLists copies the real Claude Code and Qwen Code samples into a
// fresh home directory, as those agents leave them, with the given age.
func copySavedLists(t *testing.T, home string, ago time.Duration) {
	t.Helper()
	src := filepath.Join("..", "todostore", "testdata", "saved-lists")
	for _, part := range []string{"claude", "qwen"} {
		err := filepath.Walk(filepath.Join(src, part), func(p string, info os.FileInfo, err error) error {
			if err != nil || info.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(src, p)
			dst := filepath.Join(home, "."+rel)
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(dst, data, 0o644)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	stamp := fixedNow.Add(-ago)
	filepath.Walk(home, func(p string, _ os.FileInfo, _ error) error { return os.Chtimes(p, stamp, stamp) })
}

func TestListShowsAndLoadsOtherAgentsLists(t *testing.T) {
	env, out := newTestEnv(t)
	env.Home = t.TempDir()
	copySavedLists(t, env.Home, time.Hour)
	qwenFile := filepath.Join(env.Home, ".qwen", "todos", "c956901e-91a0-45da-af91-caa4e7ae5a80.json")
	qwenBefore, err := os.ReadFile(qwenFile)
	if err != nil {
		t.Fatal(err)
	}
	r := NewRegistry()
	if err := r.Run(env, "/todo list"); err != nil {
		t.Fatal(err)
	}
	listing := out.String()
	var qwenRow, claudeRow string
	for _, line := range strings.Split(listing, "\n") {
		switch {
		case strings.Contains(line, "[qwen]"):
			qwenRow = line
		case strings.Contains(line, "[claude]"):
			claudeRow = line
		}
	}
	if qwenRow == "" || claudeRow == "" {
		t.Fatalf("listing lacks the qwen or claude row:\n%s", listing)
	}
	for _, row := range []string{qwenRow, claudeRow} {
		if !strings.Contains(row, "1 done, 1 in progress, 1 pending") {
			t.Errorf("row %q: want the sample's counts", row)
		}
	}
	num := strings.Fields(qwenRow)[0]
	out.Reset()
	if err := r.Run(env, "/todo load "+num); err != nil {
		t.Fatal(err)
	}
	sess, err := env.Store.Load(env.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if c := todostore.CountTodos(sess.Todos); c.Total != 3 || c.Completed != 1 || c.InProgress != 1 || c.Pending != 1 {
		t.Errorf("loaded %+v, want the qwen sample's three items", sess.Todos)
	}
	if after, _ := os.ReadFile(qwenFile); !bytes.Equal(after, qwenBefore) {
		t.Error("loading changed the qwen file")
	}
}

func TestListReportsUnreadableForeignList(t *testing.T) {
	env, out := newTestEnv(t)
	env.Home = t.TempDir()
	bad := filepath.Join(env.Home, ".qwen", "todos", "broken.json")
	if err := os.MkdirAll(filepath.Dir(bad), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte(`{"todos": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := NewRegistry().Run(env, "/todo list"); err != nil {
		t.Fatalf("an unreadable foreign list stopped the listing: %v", err)
	}
	if !strings.Contains(out.String(), "unreadable") || !strings.Contains(out.String(), bad) {
		t.Errorf("listing does not show the unreadable file with its path:\n%s", out.String())
	}
	if data, _ := os.ReadFile(bad); string(data) != `{"todos": [` {
		t.Error("the unreadable file was changed")
	}
}
