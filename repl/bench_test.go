package repl

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/todosh/todosh/todolist"

	"time"

	"github.com/todosh/todosh/internal/benchcpu"
)

// BenchmarkLiveRegionFrame is one frame of the live region with a
// 100-item list in a 120x40 window: erase, fold, colour and draw (goal:
// well under a millisecond).
func BenchmarkLiveRegionFrame(b *testing.B) {
	var todos []todolist.Todo
	for i := range 100 {
		t := todolist.Todo{Content: fmt.Sprintf("Item %d: implement the part of the parser for case %d", i, i), Status: todolist.Pending}
		if i%3 == 0 {
			t.Subtasks = []todolist.Subtask{{Content: "edge cases", Status: todolist.Completed}, {Content: "fuzz", Status: todolist.Pending}}
		}
		todos = append(todos, t)
	}
	todolist.Normalize(todos)
	l := newLiveRegion(io.Discard, func() (int, int) { return 120, 40 }, palette{on: true})
	l.active, l.started, l.todos, l.hasList = true, time.Now(), todos, true
	l.activity = "Bash go test ./..."
	defer benchcpu.PerOp(b)()
	for b.Loop() {
		l.mu.Lock()
		l.frame++
		l.redraw()
		l.mu.Unlock()
	}
}

// BenchmarkPaste10000 is a 10,000-character line arriving at the line
// editor (readline behind the key filter, on a fake terminal) until
// Readline returns it: bracketed, and as one unmarked read (fast typing
// or a terminal without bracketed paste). Goal: under 50 ms; readline
// alone redrew the line once per character (7-11 s).
func BenchmarkPaste10000(b *testing.B) {
	long := strings.Repeat("x", 10000)
	for _, c := range []struct{ name, keys string }{
		{"bracketed", pasteStart + long + pasteEnd + "\r"},
		{"unmarked", long + "\r"},
	} {
		b.Run(c.name, func(b *testing.B) {
			ft := newFakeTerminal(80, 24)
			rl, err := newEditor(ft, "", func(string) []string { return nil })
			if err != nil {
				b.Fatal(err)
			}
			defer rl.Close()
			defer benchcpu.PerOp(b)()
			for b.Loop() {
				ft.send(c.keys)
				line, err := rl.Readline()
				if err != nil || len(line) != len(long) {
					b.Fatalf("got %d characters, %v", len(line), err)
				}
			}
		})
	}
}
