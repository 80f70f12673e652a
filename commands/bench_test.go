package commands

import (
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	"github.com/todosh/todosh/todolist"
)

// store10000 is a store with 10 000 saved sessions besides the current
// one, one minute apart.
func store10000(b *testing.B) *Env {
	env, _ := newTestEnv(b)
	env.Out = io.Discard
	todos := parseSpec(b, "+Create project skeleton;>Implement the parser|[x]quoted fields|[ ]CRLF endings;-Write unit tests")
	for i := 0; i < 10000; i++ {
		writeSession(b, env.Store, fmt.Sprintf("20261121-%06d-%04x", i, i), fmt.Sprintf("/src/p%d", i%50), todos, time.Duration(i)*time.Minute)
	}
	writeSession(b, env.Store, env.SessionID, "/work/project", todos, 0)
	return env
}

// BenchmarkTodoList10000 runs the whole /todo list command (list the
// directory, sort, parse the 20 files shown, render) over 10 000 saved
// sessions, in script mode.
func BenchmarkTodoList10000(b *testing.B) {
	env := store10000(b)
	r := NewRegistry()
	b.ResetTimer()
	for b.Loop() {
		if err := r.Run(env, "/todo list"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStoreList10000 is the floor under BenchmarkTodoList10000:
// todostore's directory listing alone (readdir and one stat per file).
func BenchmarkStoreList10000(b *testing.B) {
	env := store10000(b)
	b.ResetTimer()
	for b.Loop() {
		if _, err := env.Store.List(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAdd100 measures adding the 100th item (the limit) to a
// 99-item list: lock, read, insert, validate, durable atomic write. The
// file is put back outside the timer.
func BenchmarkAdd100(b *testing.B) {
	env, _ := newTestEnv(b)
	env.Out = io.Discard
	todos := make([]todolist.Todo, 99)
	for i := range todos {
		todos[i] = todolist.Todo{Content: fmt.Sprintf("item %d with some ordinary text in it", i+1), Status: todolist.Pending}
	}
	todolist.Normalize(todos)
	writeSession(b, env.Store, env.SessionID, "/work/project", todos, 0)
	path := env.Store.Path(env.SessionID)
	orig, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	r := NewRegistry()
	b.ResetTimer()
	for b.Loop() {
		if err := r.Run(env, "/todo add 50 the hundredth item"); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := os.WriteFile(path, orig, 0o644); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// BenchmarkAddDelete99 is one add and one delete on a 99-item list, both
// written durably: two full read-modify-write cycles per op.
func BenchmarkAddDelete99(b *testing.B) {
	env, _ := newTestEnv(b)
	env.Out = io.Discard
	r := NewRegistry()
	todos := make([]todolist.Todo, 99)
	for i := range todos {
		todos[i] = todolist.Todo{Content: fmt.Sprintf("item %d", i+1), Status: todolist.Pending}
	}
	todolist.Normalize(todos)
	writeSession(b, env.Store, env.SessionID, "/work/project", todos, 0)
	b.ResetTimer()
	for b.Loop() {
		if err := r.Run(env, "/todo add last x"); err != nil {
			b.Fatal(err)
		}
		if err := r.Run(env, "/todo delete last"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPruneAll1000 is /todo prune all --yes over 1 000 saved
// sessions, each with a list and a lock file: list the store, then lock
// and remove every file of each session. The sessions are written again
// outside the timer.
func BenchmarkPruneAll1000(b *testing.B) {
	env, _ := newTestEnv(b)
	env.Out = io.Discard
	todos := parseSpec(b, "+Create project skeleton;-Write unit tests")
	r := NewRegistry()
	for b.Loop() {
		b.StopTimer()
		for i := 0; i < 1000; i++ {
			id := fmt.Sprintf("20261121-%06d-%04x", i, i)
			writeSession(b, env.Store, id, "/src", todos, time.Duration(i)*time.Minute)
			os.MkdirAll(env.Store.Dir+"/.locks", 0o700)
			if err := os.WriteFile(env.Store.Dir+"/.locks/"+id+".lock", nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		if err := r.Run(env, "/todo prune all --yes"); err != nil {
			b.Fatal(err)
		}
	}
}
