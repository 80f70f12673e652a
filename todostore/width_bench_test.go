package todostore

import (
	"fmt"
	"testing"

	"github.com/todosh/todosh/internal/benchcpu"
)

// benchList is 100 items, every third with three subtasks, texts of 40 to
// 90 characters with some CJK.
func benchList() []Todo {
	var todos []Todo
	for i := range 100 {
		t := Todo{Content: fmt.Sprintf("Item %d: implement the part of the parser that handles 引用符 case %d well", i, i), Status: Pending}
		if i%3 == 0 {
			for j := range 3 {
				t.Subtasks = append(t.Subtasks, Subtask{Content: fmt.Sprintf("subtask %d.%d with a little text", i, j), Status: Completed})
			}
		}
		if i < 30 {
			t.Status = Completed
		}
		todos = append(todos, t)
	}
	Normalize(todos)
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
