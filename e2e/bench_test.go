package e2e_test

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/todostore"
)

// BenchmarkListCommand10000Sessions times the whole binary running
// `todosh -c "/todo list"` over 10 000 saved sessions: process start, flag
// parsing, listing the directory and rendering the first page. Goal: under
// 50 ms on a 2-core machine.
func BenchmarkListCommand10000Sessions(b *testing.B) {
	h := newHome(b)
	writeSessions(b, h.store(), 10000)
	cmd := func() *exec.Cmd {
		c := exec.Command(binary, "-c", "/todo list")
		c.Env = h.env()
		c.Dir = h.dir
		return c
	}
	if out, err := cmd().CombinedOutput(); err != nil {
		b.Fatalf("todosh -c /todo list: %v\n%s", err, out)
	}
	// CPU time (user+sys) is reported too: wall time on a busy machine
	// says more about the other processes than about todosh.
	var cpu time.Duration
	for b.Loop() {
		c := cmd()
		if err := c.Run(); err != nil {
			b.Fatal(err)
		}
		cpu += c.ProcessState.UserTime() + c.ProcessState.SystemTime()
	}
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// writeSessions writes n small sessions directly (no lock or fsync: this
// is set-up, not what is measured), with distinct modification times.
func writeSessions(b *testing.B, store *todostore.Store, n int) {
	b.Helper()
	if err := os.MkdirAll(store.Dir, 0o755); err != nil {
		b.Fatal(err)
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		id := fmt.Sprintf("20260101-000000-%05d", i)
		at := base.Add(time.Duration(i) * time.Minute)
		sess := &todostore.Session{
			Version: todolist.FormatVersion, Session: id, CreatedAt: at, UpdatedAt: at, Cwd: "/home/ana/src/project",
			Todos: []todolist.Todo{
				{ID: "1", Content: "Create project skeleton", Status: todolist.Completed},
				{ID: "2", Content: fmt.Sprintf("Implement part %d", i), Status: todolist.InProgress},
				{ID: "3", Content: "Write unit tests", Status: todolist.Pending},
			},
		}
		data, err := todostore.Encode(sess)
		if err != nil {
			b.Fatal(err)
		}
		path := store.Path(id)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.Chtimes(path, at, at); err != nil {
			b.Fatal(err)
		}
	}
}
