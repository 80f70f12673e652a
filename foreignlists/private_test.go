package foreignlists

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/todosh/todosh/todolist"
)

// TestForeignSizedBeforeRead: a Claude task list of 1 200 valid task files
// of 900 KB is refused from its stats: almost nothing is allocated, where
// reading it cost 1.46 GB.
func TestForeignSizedBeforeRead(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tasks", "big")
	os.MkdirAll(dir, 0o700)
	first := filepath.Join(dir, "1.json")
	task := `{"id":"1","subject":"s","status":"pending","description":"` + strings.Repeat("d", 900<<10) + `"}`
	if err := os.WriteFile(first, []byte(task), 0o600); err != nil {
		t.Fatal(err)
	}
	for i := 2; i <= 1200; i++ { // hard links: 900 KB of disk for 1 GB of list
		if err := os.Link(first, filepath.Join(dir, strconv.Itoa(i)+".json")); err != nil {
			t.Fatal(err)
		}
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := LoadForeign(ForeignEntry{Source: SourceClaude, Path: dir})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, todolist.ErrLimit) || strings.Count(err.Error(), dir) != 1 {
		t.Fatalf("LoadForeign = %v, want one limit error naming the list once", err)
	}
	t.Log(err)
	if n := after.TotalAlloc - before.TotalAlloc; n > 2<<20 {
		t.Errorf("allocated %d bytes to refuse the list", n)
	}
}
