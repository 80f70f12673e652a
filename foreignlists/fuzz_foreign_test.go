package foreignlists

import (
	"testing"

	"github.com/todosh/todosh/todolist"
	"github.com/todosh/todosh/todoview"
)

// FuzzForeign feeds arbitrary bytes to the readers of other agents' files
// (a list file, or one Claude task when claudeTask is set): no panic, and
// an accepted list is valid and renders.
func FuzzForeign(f *testing.F) {
	f.Fuzz(func(t *testing.T, claudeTask bool, data []byte) {
		var todos []todolist.Todo
		var err error
		if claudeTask {
			var it foreignItem
			if it, err = decodeClaudeTask(data); err == nil {
				todos, err = adoptItems([]foreignItem{it}, itemNumber)
			}
		} else {
			todos, err = decodeForeignList(data)
		}
		if err != nil {
			return
		}
		if err := todolist.Validate(todos); err != nil {
			t.Fatalf("accepted an invalid list: %v", err)
		}
		for i, todo := range todos {
			if want := itemNumber(i)[len("item "):]; todo.ID != want {
				t.Fatalf("item %d has id %q", i+1, todo.ID)
			}
		}
		todoview.FormatList(todos)
	})
}
