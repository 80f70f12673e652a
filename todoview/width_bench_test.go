package todoview

import (
	"fmt"
	"testing"

	"github.com/todosh/todosh/internal/benchcpu"
	"github.com/todosh/todosh/todolist"
)

// benchList is 100 items, every third with three subtasks, texts of 40 to
// 90 characters with some CJK.
func benchList() []todolist.Todo {
	var todos []todolist.Todo
	for i := range 100 {
		t := todolist.Todo{Content: fmt.Sprintf("Item %d: implement the part of the parser that handles 引用符 case %d well", i, i), Status: todolist.Pending}
		if i%3 == 0 {
			for j := range 3 {
				t.Subtasks = append(t.Subtasks, todolist.Subtask{Content: fmt.Sprintf("subtask %d.%d with a little text", i, j), Status: todolist.Completed})
			}
		}
		if i < 30 {
			t.Status = todolist.Completed
		}
		todos = append(todos, t)
	}
	todolist.Normalize(todos)
	return todos
}

// BenchmarkFormatList100 renders a 100-item list with subtasks laid out
// for an 80-column terminal (goal: well under a millisecond).
func BenchmarkFormatList100(b *testing.B) {
	todos := benchList()
	defer benchcpu.PerOp(b)()
	for b.Loop() {
		FormatListWidth(todos, 80)
	}
}

// BenchmarkFoldList100 is the live region's list: the same list folded to
// 20 lines.
func BenchmarkFoldList100(b *testing.B) {
	todos := benchList()
	defer benchcpu.PerOp(b)()
	for b.Loop() {
		FoldList(todos, 119, 20)
	}
}
