package todoview

import "github.com/todosh/todosh/todolist"

// subs builds subtasks with the given statuses, named s1, s2, ...
func subs(sts ...todolist.Status) []todolist.Subtask {
	out := make([]todolist.Subtask, len(sts))
	for i, st := range sts {
		out[i] = todolist.Subtask{Content: "s" + string(rune('1'+i)), Status: st}
	}
	return out
}
