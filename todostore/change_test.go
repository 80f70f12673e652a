package todostore

import "testing"

func TestDescribeChange(t *testing.T) {
	base := func() []Todo {
		l := []Todo{
			{Content: "Write the spec", Status: Completed},
			{Content: "Implement the parser", Status: Pending, Subtasks: []Subtask{{Content: "quoted fields", Status: Pending}}},
			{Content: "Ship", Status: Pending},
		}
		Normalize(l)
		return l
	}
	edit := func(f func([]Todo) []Todo) []Todo { return f(base()) }
	for _, tc := range []struct {
		name  string
		after []Todo
		want  string
	}{
		{"done", edit(func(l []Todo) []Todo { l[2].Status = Completed; return l }), `✓ 3 "Ship" — 2/3 done`},
		{"undo", edit(func(l []Todo) []Todo { l[0].Status = Pending; return l }), `○ 1 "Write the spec" — 0/3 done`},
		{"subtask ticks item", edit(func(l []Todo) []Todo { l[1].Subtasks[0].Status = Completed; Normalize(l); return l }),
			`✓ 2.1 "quoted fields"; ✓ 2 "Implement the parser" — 2/3 done`},
		{"add", edit(func(l []Todo) []Todo { return append(l, Todo{Content: "Docs", Status: Pending}) }), `+ 4 "Docs" — 1/4 done`},
		{"insert", edit(func(l []Todo) []Todo { return append([]Todo{{Content: "First", Status: Pending}}, l...) }), `+ 1 "First" — 1/4 done`},
		{"delete", edit(func(l []Todo) []Todo { return append(l[:1], l[2:]...) }), `- 2 "Implement the parser" — 1/2 done`},
		{"add subtask", edit(func(l []Todo) []Todo {
			l[1].Subtasks = append(l[1].Subtasks, Subtask{Content: "CRLF", Status: Pending})
			return l
		}), `+ 2.2 "CRLF" — 1/3 done`},
		{"rename", edit(func(l []Todo) []Todo { l[2].Content = "Ship it"; return l }), `~ 3 "Ship it" — 1/3 done`},
		{"clear", nil, `cleared 3 items — list empty`},
		{"replace", []Todo{{Content: "x"}}, `list replaced: 1 item — 0/1 done`},
		{"many", edit(func(l []Todo) []Todo {
			for i := range l {
				l[i].Content += "!"
			}
			return l
		}), `~ 3 items — 1/3 done`},
		{"mixed", edit(func(l []Todo) []Todo {
			l[0].Content += "!"
			l[2].Status = Completed
			l[1].Content += "?"
			return l
		}), `3 changes — 2/3 done`},
		{"nothing", base(), ``},
		{"move up", edit(func(l []Todo) []Todo { return []Todo{l[2], l[0], l[1]} }), `↕ 1 "Ship" (was 3) — 1/3 done`},
		{"move down", edit(func(l []Todo) []Todo { return []Todo{l[1], l[2], l[0]} }), `↕ 3 "Write the spec" (was 1) — 1/3 done`},
		{"swap of two", edit(func(l []Todo) []Todo { return []Todo{l[1], l[0], l[2]} }), `↕ 1 "Implement the parser" (was 2) — 1/3 done`},
		{"cjk truncated", edit(func(l []Todo) []Todo {
			l[2].Content = "日本語日本語日本語日本語日本語日本語日本語日本語日本語日本語日本語"
			return l
		}), `~ 3 "日本語日本語日本語日本語日本語日本語日本語日本語…" — 1/3 done`},
	} {
		if got := DescribeChange(base(), tc.after); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}
