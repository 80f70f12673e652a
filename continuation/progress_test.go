package continuation

import (
	"slices"
	"strings"
	"testing"

	"github.com/todosh/todosh/todolist"
	"github.com/todosh/todosh/todoview"
)

// td is a todo with the given text and status; subtasks are given as
// pairs of text and status.
func td(content string, st todolist.Status, subs ...any) todolist.Todo {
	t := todolist.Todo{Content: content, Status: st}
	for i := 0; i+1 < len(subs); i += 2 {
		t.Subtasks = append(t.Subtasks, todolist.Subtask{Content: subs[i].(string), Status: subs[i+1].(todolist.Status)})
	}
	return t
}

func items(ts ...todolist.Todo) []todolist.Todo { return ts }

func TestProgressed(t *testing.T) {
	a, b, c := td("write parser", P), td("write tests", P), td("update docs", P)
	tests := []struct {
		name          string
		before, after []todolist.Todo
		want          bool
	}{
		{"nothing changed", items(a, b), items(a, b), false},
		{"empty lists", nil, nil, false},
		{"item completed", items(a, b), items(td("write parser", C), b), true},
		{"item cancelled is not progress", items(a, b), items(a, td("write tests", X)), false},
		{"in progress completed", items(td("write parser", I)), items(td("write parser", C)), true},
		{"item started is not progress", items(a, b), items(td("write parser", I), b), false},
		{"subtask ticked", items(td("p", I, "x", C, "y", P)), items(td("p", I, "x", C, "y", C)), true},
		{"subtask unticked", items(td("p", I, "x", C, "y", P)), items(td("p", I, "x", P, "y", P)), false},
		{"subtask ticked after a reorder of subtasks", items(td("p", P, "x", P, "y", P)), items(td("p", I, "y", C, "x", P)), true},
		{"subtask added is not progress", items(td("p", P, "x", P)), items(td("p", P, "x", P, "y", P)), false},
		{"reorder only", items(a, b, c), items(c, a, b), false},
		{"reorder and complete the moved item", items(a, b, c), items(td("update docs", C), a, b), true},
		{"content match ignores case and spacing", items(a, b), items(b, td("Write  Parser", C)), true},
		{"reworded in place and completed", items(a, b), items(td("write the parser", C), b), true},
		{"reworded in place only", items(a, b), items(td("write the parser", P), b), false},
		{"new completed item appended", items(a, b), items(a, b, td("ran the linter", C)), false},
		{"new completed item inserted first", items(a, b), items(td("ran the linter", C), a, b), false},
		{"a completed item moved to the front", items(a, td("done thing", C)), items(td("done thing", C), a), false},
		{"open item removed is not progress", items(a, b), items(b), false},
		{"completed item removed", items(td("old", C), a), items(a), false},
		{"pending item added", items(a), items(a, b), false},
		{"completed item reopened", items(td("old", C), a), items(td("old", P), a), false},
		{"reopen one, complete another", items(td("old", C), a), items(td("old", P), td("write parser", C)), true},
		{"duplicates pair in order", items(a, a), items(td("write parser", C), a), true},
		{"duplicate moved, none completed", items(td("x", C), a, a), items(a, td("x", C), a), false},
		{"reworded and moved is a new item", items(a, b, c), items(b, td("write the parser", C), c, td("new", P)), false},
		{"list replaced wholesale with open items", items(a), items(td("other", P), td("more", P)), false},
		{"whole list appears from nothing", nil, items(td("done", C), a), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Progressed(tt.before, tt.after); got != tt.want {
				t.Fatalf("Progressed = %v, want %v\nbefore:\n%safter:\n%s", got, tt.want,
					todoview.FormatList(tt.before), todoview.FormatList(tt.after))
			}
		})
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		name          string
		before, after []string
		want          []int
	}{
		{"same", []string{"a", "b"}, []string{"a", "b"}, []int{0, 1}},
		{"swap", []string{"a", "b"}, []string{"b", "a"}, []int{1, 0}},
		{"insert first", []string{"a", "b"}, []string{"n", "a", "b"}, []int{-1, 0, 1}},
		{"reword in place", []string{"a", "b"}, []string{"a2", "b"}, []int{0, 1}},
		{"duplicates keep their positions", []string{"x", "a", "a"}, []string{"a", "x", "a"}, []int{1, 0, 2}},
		{"all new, shorter", []string{"a", "b", "c"}, []string{"n"}, []int{0}},
		{"empty after", []string{"a"}, nil, []int{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := match(tt.before, tt.after)
			if len(got) != len(tt.want) {
				t.Fatalf("match = %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("match = %v, want %v", got, tt.want)
				}
			}
		})
	}
}

// uid is a todo as the store gives it, with its stable id.
func uid(id, content string, st todolist.Status) todolist.Todo {
	return todolist.Todo{UID: id, Content: content, Status: st}
}

// The high-water mark and receipts (issue 26): only a first completion by
// stable uid is progress, and where the backend shows work only one with
// a receipt.
func TestHighWaterMark(t *testing.T) {
	open3 := items(uid("t1", "parser", C), uid("t2", "tests", P), uid("t3", "docs", P))
	done2 := items(uid("t1", "parser", C), uid("t2", "tests", C), uid("t3", "docs", P))
	reopen2 := items(uid("t1", "parser", C), uid("t2", "tests", I), uid("t3", "docs", P))
	reworded := items(uid("t1", "parser", C), uid("t2", "the tests", C), uid("t3", "docs", P))
	moved := items(uid("t2", "tests", C), uid("t1", "parser", C), uid("t3", "docs", P))
	written3 := items(uid("t4", "Lexer", C), uid("t5", "Emit  code", C), uid("t6", "release", C))
	none := func(string) bool { return false }
	all := func(string) bool { return true }
	only := func(k string) func(string) bool { return func(s string) bool { return s == k } }
	type turn struct {
		before, after []todolist.Todo
		receipt       func(string) bool
		progress      bool
		unverified    []int
	}
	tests := []struct {
		name  string
		turns []turn
	}{
		{"first completion", []turn{{open3, done2, nil, true, nil}}},
		{"re-marked after finishing", []turn{{open3, done2, nil, true, nil}, {done2, reopen2, nil, false, nil}, {reopen2, done2, nil, false, nil}}},
		{"toggled three times", []turn{{open3, done2, nil, true, nil}, {done2, reopen2, nil, false, nil}, {reopen2, done2, nil, false, nil},
			{done2, reopen2, nil, false, nil}, {reopen2, done2, nil, false, nil}}},
		{"reworded after finishing", []turn{{open3, done2, nil, true, nil}, {done2, reopen2, nil, false, nil}, {reopen2, reworded, nil, false, nil}}},
		{"reordered after finishing", []turn{{open3, done2, nil, true, nil}, {done2, moved, nil, false, nil}}},
		{"completion with a receipt", []turn{{open3, done2, all, true, nil}}},
		{"completion without a receipt", []turn{{open3, done2, none, false, []int{2}}}},
		{"receipt of another item", []turn{{open3, done2, only("t3"), false, []int{2}}}},
		{"unverified, then a receipt", []turn{{open3, done2, none, false, []int{2}}, {done2, done2, all, true, nil}}},
		{"unverified, then reopened", []turn{{open3, done2, none, false, []int{2}}, {done2, reopen2, none, false, nil}}},
		{"unverified, reopened, worked, done", []turn{{open3, done2, none, false, []int{2}}, {done2, reopen2, none, false, nil}, {reopen2, done2, all, true, nil}}},
		{"a receipt counts once", []turn{{open3, done2, all, true, nil}, {done2, done2, all, false, nil}}},
		// Items written completed, never seen open: a finished list the
		// agent re-sends (its texts were the session's before the
		// person's prompt, archived say) is not reported; a list new to
		// the session written done with no receipt is new work done
		// without one. Neither is progress.
		{"re-sent finished list after an archive", []turn{{nil, done2, none, false, nil}}},
		{"new list written done", []turn{{nil, written3, none, false, []int{1, 2, 3}}}},
		{"new list written done, with receipts", []turn{{nil, written3, all, false, nil}}},
		{"new list written done, then its work", []turn{{nil, written3, none, false, []int{1, 2, 3}}, {written3, written3, only("t5"), true, []int{1, 3}}}},
		{"new item written done beside re-sent ones", []turn{{nil, append(done2[:2:2], uid("t6", "release", C)), none, false, []int{3}}}},
		{"re-sent finished item beside an open one", []turn{{open3[2:], append(done2[:2:2], open3[2]), none, false, nil}}},
		{"completed before the prompt", []turn{{done2, done2, none, false, nil}}},
	}
	// The session's history before the person's prompt: the finished
	// list (parser, tests), archived.
	known := func(k string) bool { return k == "parser" || k == "tests" || k == "docs" }
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := New()
			for i, tr := range tt.turns {
				d := p.Decide(Turn{Before: tr.before, After: tr.after, Receipt: tr.receipt, Known: known}, Tools{Todo: "todo_write"})
				if d.Progress != tr.progress || !slices.Equal(d.Unverified, tr.unverified) {
					t.Fatalf("turn %d: progress %v unverified %v, want %v %v", i, d.Progress, d.Unverified, tr.progress, tr.unverified)
				}
				p = Restore(p.State()) // the hooks keep it between processes
			}
		})
	}
}

// Only items done without a receipt remain: the policy continues, names
// them, and stops at the no-progress cap like any other attempt.
func TestUnverifiedKeepsGoing(t *testing.T) {
	before := items(uid("t1", "parser", I))
	after := items(uid("t1", "parser", C))
	none := func(string) bool { return false }
	p := New()
	d := p.Decide(Turn{Before: before, After: after, Receipt: none}, Tools{Todo: "TodoWrite"})
	if !d.Continue || d.Line != "continuing 1/3 — 1 item done without a receipt" {
		t.Fatalf("decision %+v", d)
	}
	if !strings.Contains(d.Prompt, "Item 1 is marked completed, but todosh saw no successful edit or command") {
		t.Fatalf("prompt does not name the item:\n%s", d.Prompt)
	}
	for range MaxNoProgress - 1 {
		p.Decide(Turn{Before: after, After: after, Receipt: none}, Tools{Todo: "TodoWrite"})
	}
	if d := p.Decide(Turn{Before: after, After: after, Receipt: none}, Tools{Todo: "TodoWrite"}); d.Continue || d.Reason != NoProgress {
		t.Fatalf("no stop at the cap: %+v", d)
	}
	// Without receipts (a backend that shows no work) the same turn is done.
	if d := New().Decide(Turn{Before: before, After: after}, Tools{Todo: "todo_write"}); d.Continue || d.Reason != NoOpenItems {
		t.Fatalf("status rule: %+v", d)
	}
}

// What the policy counts as done without a receipt in a turn that writes
// its list: an item the agent created and then finished counts only when
// the turn gives the list it wrote first (Turn.First; turnstep reads it
// from the history when another process, todosh's MCP server, wrote it),
// which is what every list shows as "reported, no receipt". An item
// written completed already counts only when the turn knows the session's
// history (Turn.Known) and its text is new to it; items completed before
// the person's prompt, and finished items re-sent, are not counted
// although a list marks them.
func TestUnverifiedFromTheFirstList(t *testing.T) {
	written := items(uid("t1", "parser", P), uid("t2", "tests", P), uid("t3", "docs", P))
	one := items(uid("t1", "parser", C), uid("t2", "tests", P), uid("t3", "docs", P))
	two := items(uid("t1", "parser", C), uid("t2", "tests", C), uid("t3", "docs", P))
	none := func(string) bool { return false }
	for _, tc := range []struct {
		name string
		turn Turn
		want []int
	}{
		{"written, one finished, first list given", Turn{First: written, After: one}, []int{1}},
		{"written, one finished, first list unknown", Turn{After: one}, nil},
		{"written with one completed, history unknown", Turn{First: one, After: one}, nil},
		{"written with one completed, new to the session", Turn{First: one, After: one, Known: func(string) bool { return false }}, []int{1}},
		{"written with one completed, re-sent", Turn{First: one, After: one, Known: func(k string) bool { return k == "parser" }}, nil},
		{"written, one finished, history known", Turn{First: written, After: one, Known: func(string) bool { return true }}, []int{1}},
		{"written, two finished", Turn{First: written, After: two}, []int{1, 2}},
		{"one done before the prompt, one finished", Turn{Before: one, After: two}, []int{2}},
		{"one done before the prompt, rewritten, one finished", Turn{Before: one, First: one, After: two}, []int{2}},
	} {
		tc.turn.Receipt = none
		if got := New().Decide(tc.turn, Tools{Todo: "todo_write"}).Unverified; !slices.Equal(got, tc.want) {
			t.Errorf("%s: unverified %v, want %v", tc.name, got, tc.want)
		}
	}
}

// An agent that writes a list new to the session done in one go, with no
// work seen, is not "all done": the items are named as done without a
// receipt, and since nothing is progress the policy stops at the cap.
func TestWrittenDoneKeepsGoing(t *testing.T) {
	done := items(uid("t1", "parser", C), uid("t2", "tests", C), uid("t3", "docs", C))
	none := func(string) bool { return false }
	turn := Turn{After: done, Receipt: none, Known: none}
	p := New()
	d := p.Decide(turn, Tools{Todo: "TodoWrite"})
	if !d.Continue || d.Line != "continuing 1/3 — 3 items done without a receipt" || d.Progress {
		t.Fatalf("decision %+v", d)
	}
	if !strings.Contains(d.Prompt, "Items 1, 2, 3 are marked completed") {
		t.Fatalf("prompt does not name the items:\n%s", d.Prompt)
	}
	turn.Before = done
	for i := 2; i <= MaxNoProgress; i++ {
		p = Restore(p.State())
		if d := p.Decide(turn, Tools{Todo: "TodoWrite"}); !d.Continue || d.Attempt != i {
			t.Fatalf("attempt %d: %+v", i, d)
		}
	}
	if d := p.Decide(turn, Tools{Todo: "TodoWrite"}); d.Continue || d.Line != "stopped: 3 attempts without progress" {
		t.Fatalf("no stop at the cap: %+v", d)
	}
	// The same list re-sent after the person's prompt archived it.
	turn = Turn{After: done, Receipt: none, Known: func(string) bool { return true }}
	if d := New().Decide(turn, Tools{Todo: "TodoWrite"}); d.Continue || d.Line != "all done" {
		t.Fatalf("re-sent list: %+v", d)
	}
}

// TestKnownFrom: the texts are read once, at the first question, and
// never when none is asked.
func TestKnownFrom(t *testing.T) {
	reads := 0
	known := KnownFrom(func() map[string]bool {
		reads++
		return map[string]bool{TextKey("Write  Tests"): true}
	})
	if reads != 0 {
		t.Fatalf("read %d times before a question", reads)
	}
	if !known(TextKey("write tests")) || known(TextKey("ship it")) || reads != 1 {
		t.Fatalf("known: reads %d", reads)
	}
}
