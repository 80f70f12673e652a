package todostore_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/todosh/todosh/foreignlists"
	"github.com/todosh/todosh/internal/testenv"
	"github.com/todosh/todosh/todostore"
)

// BenchmarkForeignAndList measures what /todo list reads from disk with
// 5000 lists of other agents (1000 Claude task lists of 3 tasks, 1000
// Claude TodoWrite files, 1500 Qwen and 1500 llxprt files) and 5000 own
// sessions: foreignlists.ForeignEntries plus Store.List, no parsing. It is
// an external test: foreignlists imports todostore.
func BenchmarkForeignAndList(b *testing.B) {
	home := b.TempDir()
	s := todostore.Open(filepath.Join(home, ".todosh"))
	todostore.MakeSessions(b, s, 5000)
	write := func(rel, content string) {
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	item := `[{"content":"a task","status":"pending"}]`
	for i := 0; i < 1000; i++ {
		for n := 1; n <= 3; n++ {
			write(fmt.Sprintf(".claude/tasks/list-%d/%d.json", i, n), `{"id":"1","subject":"s","status":"pending"}`)
		}
		write(fmt.Sprintf(".claude/tasks/list-%d/.lock", i), "")
		write(fmt.Sprintf(".claude/todos/s%d-agent-s%d.json", i, i), item)
	}
	for i := 0; i < 1500; i++ {
		write(fmt.Sprintf(".qwen/todos/q%d.json", i), `{"todos":`+item+`}`)
		write(fmt.Sprintf(".llxprt/todos/todo-l%d.json", i), item)
	}
	testenv.SyncDisks()
	for b.Loop() {
		foreign, err := foreignlists.ForeignEntries(home, func(string) string { return "" })
		if err != nil || len(foreign) != 5000 {
			b.Fatalf("ForeignEntries = %d, %v", len(foreign), err)
		}
		own, err := s.List()
		if err != nil || len(own) != 5000 {
			b.Fatalf("List = %d, %v", len(own), err)
		}
	}
}
