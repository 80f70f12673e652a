package todostore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/todosh/todosh/todolist"
)

func TestHealth(t *testing.T) {
	dir := t.TempDir()
	s := Open(filepath.Join(dir, "new", "home"))
	if h := s.Health(); h.Exists || !h.Writable || h.Problem != "" {
		t.Errorf("missing root under a writable dir: %+v", h)
	}
	if _, err := os.Stat(s.Root); err == nil {
		t.Fatal("Health made the root")
	}
	s = Open(filepath.Join(dir, "h"))
	if _, err := s.Update("one", func(ss *Session) error {
		ss.Todos = []todolist.Todo{{Content: "x", Status: todolist.Pending}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	h := s.Health()
	if !h.Exists || !h.Writable || !h.Private || h.Sessions != 1 || h.Bytes == 0 || h.Problem != "" || h.DirMode != 0o700 {
		t.Errorf("one session: %+v", h)
	}
	if err := os.Chmod(s.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if h := s.Health(); h.Private || !strings.Contains(h.Problem, "go-rwx") {
		t.Errorf("readable by others: %+v", h)
	}
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o600)
	if h := Open(file).Health(); !strings.Contains(h.Problem, "not a directory") {
		t.Errorf("a file as the root: %+v", h)
	}
}
