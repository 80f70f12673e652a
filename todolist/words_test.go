package todolist

import (
	"strings"
	"testing"
)

func list(spec ...string) []Todo {
	var out []Todo
	for _, s := range spec {
		text, st, _ := strings.Cut(s, ":")
		status := Pending
		switch st {
		case "x":
			status = Completed
		case ">":
			status = InProgress
		case "c":
			status = Cancelled
		}
		out = append(out, Todo{Content: text, Status: status})
	}
	Normalize(out)
	if out == nil {
		out = []Todo{}
	}
	return out
}

func withSubs(t Todo, subs ...Subtask) Todo {
	t.Subtasks = subs
	return t
}

func TestDescribe(t *testing.T) {
	sub := func(text string, done bool) Subtask {
		st := Pending
		if done {
			st = Completed
		}
		return Subtask{Content: text, Status: st}
	}
	parent := func(subs ...Subtask) []Todo {
		l := list("a", "b")
		l[1] = withSubs(l[1], subs...)
		Normalize(l)
		return l
	}
	tests := []struct {
		name          string
		before, after []Todo
		by            Author
		want          string
	}{
		{"same", list("a"), list("a"), ByYou, ""},
		{"add last", list("a", "b"), list("a", "b", "write tests"), ByYou, `added 3 "write tests"`},
		{"add first", list("a"), list("z", "a"), ByYou, `added 1 "z"`},
		{"delete", list("a", "b", "c"), list("a", "c"), ByYou, `deleted 2 "b"`},
		{"complete", list("a", "b"), list("a", "b:x"), ByYou, "completed 2"},
		{"start", list("a", "b"), list("a:>", "b"), ByYou, "started 1"},
		{"cancel", list("a", "b"), list("a", "b:c"), ByYou, "cancelled 2"},
		{"reopen", list("a:x"), list("a"), ByYou, "reopened 1"},
		{"edit", list("a", "b"), list("a", "bee"), ByYou, `edited 2 "bee"`},
		{"move down", list("a", "b", "c", "d"), list("b", "c", "a", "d"), ByYou, "moved 1 to 3"},
		{"move up", list("a", "b", "c", "d"), list("d", "a", "b", "c"), ByYou, "moved 4 to 1"},
		{"swap neighbours", list("a", "b"), list("b", "a"), ByYou, "moved 2 to 1"},
		{"tick subtask", parent(sub("s", false), sub("t", false)), parent(sub("s", true), sub("t", false)), ByYou, "completed 2.1"},
		{"add subtask", parent(sub("s", false)), parent(sub("s", false), sub("t", false)), ByYou, `added 2.2 "t"`},
		{"delete subtask", parent(sub("s", false), sub("t", false)), parent(sub("t", false)), ByYou, `deleted 2.1 "s"`},
		{"move subtask", parent(sub("s", false), sub("t", false)), parent(sub("t", false), sub("s", false)), ByYou, "moved 2.2 to 2.1"},
		{"agent rewrite", list("a", "b", "c"), list("a:x", "b:x", "c", "d"), ByAgent, "rewrote the list: 2 completed, 1 added"},
		{"agent drops", list("a", "b", "c"), list("a:x", "d"), ByAgent, "rewrote the list: 1 completed, 1 added, 2 removed"},
		{"agent first list", list(), list("a", "b"), ByAgent, "wrote a list of 2 items"},
		{"person new list", list(), list("a", "b"), ByYou, "new list of 2 items"},
		{"emptied", list("a", "b"), list(), ByOther, "emptied the list (2 items)"},
		{"reordered", list("a", "b", "c"), list("c", "b", "a"), ByYou, "changed the list: reordered"},
		{"several statuses", list("a:>", "b", "c:c", "d"), list("a", "b:x", "c", "d:x"), ByYou, "reopened 1, 3; completed 2, 4"},
		{"delete range", list("a", "b", "c", "d"), list("a", "d"), ByYou, `deleted 2 items: 2 "b", 3 "c"`},
		{"add several", list("a"), list("x", "a", "y", "z", "w"), ByAgent, `added 4 items: 1 "x", 3 "y", 4 "z", …`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Describe(tt.before, tt.after, tt.by); got != tt.want {
				t.Errorf("Describe = %q, want %q", got, tt.want)
			}
		})
	}
}
