package clis

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/internal/testenv"
	"github.com/todosh/todosh/todostore"
)

// promptRecordings are the recorded first turns replayed by the fake CLI
// to count the store's work for one prompt.
var promptRecordings = []struct{ kind, folder, file string }{
	{"claude", "claude-todowrite", "claude-run1.jsonl"},
	{"claude", "claude-tasks", "claude-run1.jsonl"},
	{"codex", "codex", "codex-run1.jsonl"},
	{"gemini", "gemini", "gemini-run1.jsonl"},
}

// todoEvents counts the todo events (whole lists and Task calls) of a
// recording, as the parser sees them.
func todoEvents(t testing.TB, kind, path string) int {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var p Parser = &ClaudeParser{}
	switch kind {
	case "codex":
		p = &CodexParser{}
	case "gemini":
		p = &GeminiParser{}
	}
	n := 0
	ParseStream(f, kind, p, func(u Update) {
		if u.Kind == UpdateTodos || u.Kind == UpdateTask {
			n++
		}
	})
	return n
}

// promptWrites runs one prompt on a new session through the fake CLI
// replaying run1 and returns the session writes, fsyncs and history lines
// it made.
func promptWrites(t testing.TB, kind, run1 string, id string, store *todostore.Store) (writes, syncs int64, lines []todostore.HistoryLine) {
	env := testenv.Env(t.TempDir(), "FAKECLI_RUN1="+run1)
	a, err := New(kind, Config{Bin: filepath.Join(fakeDir, kind), Dir: t.TempDir(), Env: env}, agent.Session{Store: store, ID: id})
	if err != nil {
		t.Fatal(err)
	}
	w0, s0 := todostore.WriteStats()
	if _, err := a.RunTurn(context.Background(), agent.Turn{Prompt: "Plan and start building csvkit-lite"}, func(agent.Event) {}); err != nil {
		t.Fatal(err)
	}
	w1, s1 := todostore.WriteStats()
	lines, err = store.History(id)
	if err != nil {
		t.Fatal(err)
	}
	return w1 - w0, s1 - s0, lines
}

// TestOnePromptWritesOncePerChange: one prompt replayed from a recording
// writes the session file once per real change (each with exactly one
// history line) and never for a todo event that repeats the list.
func TestOnePromptWritesOncePerChange(t *testing.T) {
	for _, c := range promptRecordings {
		t.Run(c.folder, func(t *testing.T) {
			store := todostore.Open(t.TempDir())
			path := transcript("transcripts", c.folder, c.file)
			writes, _, lines := promptWrites(t, c.kind, path, "w", store)
			if int(writes) != len(lines) {
				t.Errorf("%d session writes for %d history lines", writes, len(lines))
			}
			listChanges := 0
			prev := []todolist.Todo{}
			for _, l := range lines {
				if !todolist.SameTodos(prev, l.Todos) {
					listChanges++
				}
				prev = l.Todos
			}
			// The one write that is not a list change records the CLI's
			// session id at the end of the turn.
			if len(lines)-listChanges > 1 {
				t.Errorf("%d writes changed nothing in the list: %+v", len(lines)-listChanges, lines)
			}
			if events := todoEvents(t, c.kind, path); listChanges > events {
				t.Errorf("%d list changes from %d todo events", listChanges, events)
			}
			// Every line twice: each todo event comes again with the list
			// it already applied, and costs nothing.
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var doubled []byte
			for _, line := range bytes.SplitAfter(data, []byte("\n")) {
				doubled = append(append(doubled, line...), line...)
			}
			twice := filepath.Join(t.TempDir(), "twice.jsonl")
			os.WriteFile(twice, doubled, 0o644)
			// (Claude's Task results are matched to their calls by id, so
			// the parser itself drops the repeats of claude-tasks.)
			if events := todoEvents(t, c.kind, twice); c.folder != "claude-tasks" && events < 2*todoEvents(t, c.kind, path) {
				t.Fatalf("the doubled recording has %d todo events", events)
			}
			if w2, _, _ := promptWrites(t, c.kind, twice, "w2", store); w2 != writes {
				t.Errorf("repeated todo events: %d writes, want %d", w2, writes)
			}
		})
	}
}

// BenchmarkPromptWrites reports, per recorded prompt, its todo events, the
// list changes they made, and the session writes and fsyncs the store did
// (goal: one write per real change, none for repeats).
func BenchmarkPromptWrites(b *testing.B) {
	for _, c := range promptRecordings {
		b.Run(c.folder, func(b *testing.B) {
			store := todostore.Open(b.TempDir())
			path := transcript("transcripts", c.folder, c.file)
			events := todoEvents(b, c.kind, path)
			var writes, syncs, lines int64
			for i := 0; i < b.N; i++ {
				w, s, l := promptWrites(b, c.kind, path, fmt.Sprintf("b%d", i), store)
				writes, syncs, lines = writes+w, syncs+s, lines+int64(len(l))
			}
			n := float64(b.N)
			b.ReportMetric(float64(events), "todo-events/prompt")
			b.ReportMetric(float64(lines)/n, "changes/prompt")
			b.ReportMetric(float64(writes)/n, "writes/prompt")
			b.ReportMetric(float64(syncs)/n, "fsyncs/prompt")
		})
	}
}
