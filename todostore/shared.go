package todostore

import (
	"fmt"
	"os"
	"reflect"
	"testing"

	"github.com/todosh/todosh/todolist"
)

// sharedCheckOff names the environment variable that turns the check off
// in a test binary (perf's benchmarks set it: the check copies the list).
const sharedCheckOff = "TODOSH_NO_SHARED_CHECK"

// checkingShared reports whether changes check that they left the cache's
// session as it was: only in test binaries, so every package's tests hold
// its change functions to copy on write.
func checkingShared() bool {
	return testing.Testing() && os.Getenv(sharedCheckOff) == ""
}

// sharedSnapshot is a deep copy of the list a change starts from, taken in
// test binaries only (nil otherwise).
func sharedSnapshot(cur *Session) []todolist.Todo {
	if !checkingShared() {
		return nil
	}
	return todolist.CloneTodos(cur.Todos)
}

// checkShared panics when a change wrote into a subtask array it shared
// with cur (the cache's session): a bug in the change, which must call
// OwnSubtasks before writing into an item's subtasks.
func checkShared(cur *Session, snap []todolist.Todo) {
	if snap == nil {
		return
	}
	for i := range snap {
		if !reflect.DeepEqual(snap[i].Subtasks, cur.Todos[i].Subtasks) {
			panic(fmt.Sprintf("todostore: a change wrote into item %d's shared subtasks: call OwnSubtasks before writing into them", i+1))
		}
	}
}
