package todoview

import (
	"fmt"
	"strings"
	"testing"

	"github.com/todosh/todosh/textwidth"
	"github.com/todosh/todosh/todolist"
)

// TestFormatListWidth checks that every line fits, CJK and emoji items
// align their notes by display width, and wrapped text hangs under the
// item's text.
func TestFormatListWidth(t *testing.T) {
	todos := []todolist.Todo{
		{Content: "Implement the parser for the configuration file format", Status: todolist.InProgress},
		{Content: "日本語のドキュメントを書く", Status: todolist.InProgress},
		{Content: "Ship it 🚀", Status: todolist.InProgress},
		{Content: "Tests", Status: todolist.Pending, Subtasks: []todolist.Subtask{{Content: "edge cases with a rather long description", Status: todolist.Completed}, {Content: "fuzz", Status: todolist.Pending}}},
	}
	todolist.Normalize(todos)
	for _, cols := range []int{20, 40, 120} {
		out := FormatListWidth(todos, cols)
		for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if textwidth.Width(l) > cols {
				t.Errorf("at %d columns line %q is %d wide:\n%s", cols, l, textwidth.Width(l), out)
			}
		}
	}
	out := FormatListWidth(todos, 120)
	var notes []int
	for _, l := range strings.Split(out, "\n") {
		if i := strings.Index(l, "(in progress"); i >= 0 {
			notes = append(notes, textwidth.Width(l[:i]))
		}
	}
	if len(notes) != 4 || notes[0] < noteColumn || notes[1] != noteColumn || notes[2] != noteColumn || notes[3] != noteColumn {
		t.Errorf("notes start at columns %v, want the two short items at %d:\n%s", notes, noteColumn, out)
	}
	out = FormatListWidth(todos, 40)
	want := " 1. ▸ Implement the parser for the\n" +
		"      configuration file format\n" +
		"      (in progress)\n"
	if !strings.Contains(out, want) {
		t.Errorf("at 40 columns item 1 is not wrapped under its text:\n%s", out)
	}
	if FormatList(todos) != FormatListWidth(todos, 0) {
		t.Error("FormatList is not FormatListWidth(0)")
	}
}

// TestFoldList: a list too long for the live region folds its done items
// first, then the open items at the end, and never exceeds its lines.
func TestFoldList(t *testing.T) {
	var todos []todolist.Todo
	for i := range 30 {
		st := todolist.Pending
		if i < 10 {
			st = todolist.Completed
		}
		todos = append(todos, todolist.Todo{Content: fmt.Sprintf("item number %d", i+1), Status: st})
	}
	for _, max := range []int{3, 8, 25, 40} {
		out := FoldList(todos, 40, max)
		n := strings.Count(out, "\n")
		if n > max && max < 31 {
			t.Errorf("FoldList(max %d) has %d lines:\n%s", max, n, out)
		}
		if max < 31 && !strings.Contains(out, "10 items done or cancelled (folded)") {
			t.Errorf("FoldList(max %d) did not fold the done items:\n%s", max, out)
		}
		if max == 8 && (!strings.Contains(out, "11. ○ item number 11") || !strings.Contains(out, "… 15 more open")) {
			t.Errorf("FoldList(max 8) should keep positions and count the rest:\n%s", out)
		}
	}
	if out := FoldList(todos[:3], 40, 10); out != FormatListWidth(todos[:3], 40) {
		t.Errorf("a list that fits is not folded:\n%s", out)
	}
}
