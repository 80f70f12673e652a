// Package todolisttest builds lists for the tests of the packages above
// todolist: the same few shapes every store, view and saved-list test
// starts from (ARCHITECTURE.md §2: test-only, never linked).
package todolisttest

import (
	"slices"
	"strings"

	"github.com/todosh/todosh/todolist"
)

// DesignExample is the example list the format was designed with.
func DesignExample() []todolist.Todo {
	todos := []todolist.Todo{
		{Content: "Create project skeleton", Status: todolist.Completed},
		{Content: "Implement the parser", Status: todolist.InProgress, ActiveForm: "Implementing the parser", Subtasks: []todolist.Subtask{
			{Content: "quoted fields", Status: todolist.Completed},
			{Content: "CRLF endings", Status: todolist.Pending},
		}},
		{Content: "Write unit tests", Status: todolist.Pending},
	}
	todolist.Normalize(todos)
	return todos
}

// Items builds a list of pending todos with the given texts.
func Items(texts ...string) []todolist.Todo {
	out := make([]todolist.Todo, len(texts))
	for i, s := range texts {
		out[i] = todolist.Todo{Content: s, Status: todolist.Pending}
	}
	return out
}

// Subs builds subtasks with the given statuses, named s1, s2, ...
func Subs(sts ...todolist.Status) []todolist.Subtask {
	out := make([]todolist.Subtask, len(sts))
	for i, st := range sts {
		out[i] = todolist.Subtask{Content: "s" + string(rune('1'+i)), Status: st}
	}
	return out
}

// Contents lists todo texts, with subtasks as "parent/sub", for compact
// comparisons.
func Contents(todos []todolist.Todo) string {
	var parts []string
	for _, t := range todos {
		p := t.ID + ":" + t.Content + "=" + string(t.Status)
		for _, s := range t.Subtasks {
			p += " " + s.ID + ":" + s.Content + "=" + string(s.Status)
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, " | ")
}

// List builds a list from "text" or "text:mark" specs, mark x for
// completed, > in progress and c cancelled, normalized as the store keeps it.
func List(spec ...string) []todolist.Todo {
	var out []todolist.Todo
	for _, s := range spec {
		text, st, _ := strings.Cut(s, ":")
		status := todolist.Pending
		switch st {
		case "x":
			status = todolist.Completed
		case ">":
			status = todolist.InProgress
		case "c":
			status = todolist.Cancelled
		}
		out = append(out, todolist.Todo{Content: text, Status: status})
	}
	todolist.Normalize(out)
	if out == nil {
		out = []todolist.Todo{}
	}
	return out
}

// FuzzLists makes a list of 0-7 items (texts from a small alphabet, so
// that texts repeat) and an edit of it: each further byte adds, deletes,
// moves, renames, re-marks or (un)ticks a subtask.
func FuzzLists(data []byte) (before, after []todolist.Todo) {
	next := func() int {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return int(b)
	}
	statuses := []todolist.Status{todolist.Pending, todolist.InProgress, todolist.Completed, todolist.Cancelled}
	n := next() % 8
	for range n {
		b := next()
		t := todolist.Todo{Content: string(rune('a' + b%6)), Status: statuses[b/6%4]}
		if b&0x80 != 0 {
			t.Subtasks = []todolist.Subtask{{Content: "s", Status: todolist.Pending}, {Content: "t", Status: todolist.Completed}}
		}
		before = append(before, t)
	}
	todolist.Normalize(before)
	after = todolist.CloneTodos(before)
	for len(data) > 0 {
		op, arg := next(), next()
		i := 0
		if len(after) > 0 {
			i = arg % len(after)
		}
		switch op % 8 {
		case 0:
			after = slices.Insert(after, min(arg%8, len(after)), todolist.Todo{Content: string(rune('a' + arg%7)), Status: todolist.Pending})
		case 1:
			if len(after) > 0 {
				after = slices.Delete(after, i, i+1)
			}
		case 2:
			if len(after) > 1 {
				v := after[i]
				after = slices.Insert(slices.Delete(after, i, i+1), (arg/8)%(len(after)-1), v)
			}
		case 3:
			if len(after) > 0 {
				after[i].Content += string(rune('a' + arg%3))
			}
		case 4, 5:
			if len(after) > 0 && len(after[i].Subtasks) == 0 {
				after[i].Status = statuses[(arg/8)%4]
			}
		case 6:
			if len(after) > 0 && len(after[i].Subtasks) > 0 {
				s := &after[i].Subtasks[(arg/8)%len(after[i].Subtasks)]
				s.Status = map[todolist.Status]todolist.Status{todolist.Pending: todolist.Completed, todolist.Completed: todolist.Pending}[s.Status]
			}
		case 7:
			if len(after) > 0 {
				after[i].Evidence = "ev" + string(rune('0'+arg%3))
			}
		}
	}
	todolist.Normalize(after)
	return before, after
}

// Texts is the texts of todos, in order.
func Texts(todos []todolist.Todo) []string {
	var out []string
	for _, t := range todos {
		out = append(out, t.Content)
	}
	return out
}
