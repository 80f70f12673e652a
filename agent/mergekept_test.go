package agent

import (
	"reflect"
	"testing"
)

// keptFor checks which kept items the merge says it kept for their
// subtasks (the reply names them so).
func keptFor(t *testing.T, m Merge, want []int) {
	t.Helper()
	if !reflect.DeepEqual(m.KeptForSubtasks, want) {
		t.Errorf("kept for their subtasks %v, want %v", m.KeptForSubtasks, want)
	}
}
