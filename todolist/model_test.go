package todolist

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// items builds a list of pending todos with the given texts.
func items(texts ...string) []Todo {
	out := make([]Todo, len(texts))
	for i, s := range texts {
		out[i] = Todo{Content: s, Status: Pending}
	}
	return out
}

// subs builds subtasks with the given statuses, named s1, s2, ...
func subs(sts ...Status) []Subtask {
	out := make([]Subtask, len(sts))
	for i, st := range sts {
		out[i] = Subtask{Content: "s" + string(rune('1'+i)), Status: st}
	}
	return out
}

func TestNormalizeIDs(t *testing.T) {
	todos := []Todo{
		{ID: "9", Content: "a", Status: Pending},
		{ID: "x", Content: "b", Status: Pending, Subtasks: []Subtask{{ID: "7.7", Content: "c", Status: Pending}, {Content: "d", Status: Completed}}},
	}
	Normalize(todos)
	got := []string{todos[0].ID, todos[1].ID, todos[1].Subtasks[0].ID, todos[1].Subtasks[1].ID}
	want := []string{"1", "2", "2.1", "2.2"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("ids = %v, want %v", got, want)
		}
	}
}

func TestDerivedStatus(t *testing.T) {
	tests := []struct {
		name string
		own  Status
		subs []Subtask
		want Status
	}{
		{"no subtasks keeps pending", Pending, nil, Pending},
		{"no subtasks keeps completed", Completed, nil, Completed},
		{"no subtasks keeps in progress", InProgress, nil, InProgress},
		{"none done is pending", Pending, subs(Pending, Pending), Pending},
		{"none done but started", InProgress, subs(Pending, Pending), InProgress},
		{"none done reopens completed", Completed, subs(Pending), Pending},
		{"some done", Pending, subs(Completed, Pending), InProgress},
		{"all done", Pending, subs(Completed, Completed), Completed},
		{"all done from in progress", InProgress, subs(Completed), Completed},
		{"cancelled stays", Cancelled, subs(Completed, Pending), Cancelled},
		{"cancelled stays when all done", Cancelled, subs(Completed), Cancelled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			todo := Todo{Content: "x", Status: tt.own, Subtasks: tt.subs}
			if got := DerivedStatus(todo); got != tt.want {
				t.Errorf("DerivedStatus = %s, want %s", got, tt.want)
			}
			list := []Todo{todo}
			Normalize(list)
			if list[0].Status != tt.want {
				t.Errorf("after Normalize status = %s, want %s", list[0].Status, tt.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	long := strings.Repeat("é", MaxTextLen) // runes, not bytes, are counted
	tooLong := long + "x"
	many := func(n int) []Todo {
		out := make([]Todo, n)
		for i := range out {
			out[i] = Todo{Content: "t", Status: Pending}
		}
		return out
	}
	manySubs := func(n int) []Todo {
		t := Todo{Content: "t", Status: Pending}
		for i := 0; i < n; i++ {
			t.Subtasks = append(t.Subtasks, Subtask{Content: "s", Status: Pending})
		}
		return []Todo{t}
	}
	tests := []struct {
		name    string
		todos   []Todo
		wantErr string // "" means valid
		limit   bool   // error must wrap ErrLimit
	}{
		{"empty list", nil, "", false},
		{"100 todos", many(MaxTodos), "", false},
		{"101 todos", many(MaxTodos + 1), "101 todos, over the limit of 100", true},
		{"50 subtasks", manySubs(MaxSubtasks), "", false},
		{"51 subtasks", manySubs(MaxSubtasks + 1), "todo 1 has 51 subtasks, over the limit of 50", true},
		{"1000 characters", []Todo{{Content: long, Status: Pending}}, "", false},
		{"1001 characters", []Todo{{Content: tooLong, Status: Pending}}, "todo 1 text is 1001 characters, over the limit of 1000", true},
		{"long activeForm", []Todo{{Content: "a", ActiveForm: tooLong, Status: Pending}}, "todo 1 activeForm is 1001 characters", true},
		{"long evidence", []Todo{{Content: "a", Evidence: tooLong, Status: Completed}}, "todo 1 evidence is 1001 characters", true},
		{"long subtask", []Todo{{Content: "a", Status: Pending, Subtasks: []Subtask{{Content: tooLong, Status: Pending}}}}, "subtask 1.1 text is 1001 characters", true},
		{"long subtask evidence", []Todo{{Content: "a", Status: Pending, Subtasks: []Subtask{{Content: "s", Evidence: tooLong, Status: Pending}}}}, "subtask 1.1 evidence is 1001", true},
		{"empty text", []Todo{{Content: "", Status: Pending}}, "todo 1 text is empty", false},
		{"blank text", items("ok", " \t\n"), "todo 2 text is empty", false},
		{"empty subtask text", []Todo{{Content: "a", Status: Pending, Subtasks: []Subtask{{Content: " ", Status: Pending}}}}, "subtask 1.1 text is empty", false},
		{"invalid utf8", []Todo{{Content: "a\xffb", Status: Pending}}, "todo 1 text is not valid UTF-8", false},
		{"unknown status", []Todo{{Content: "a", Status: "done"}}, `todo 1 has unknown status "done"`, false},
		{"missing status", []Todo{{Content: "a"}}, `todo 1 has unknown status ""`, false},
		{"cancelled ok", []Todo{{Content: "a", Status: Cancelled}}, "", false},
		{"subtask in progress", []Todo{{Content: "a", Status: Pending, Subtasks: []Subtask{{Content: "s", Status: InProgress}}}}, `subtask 1.1 has status "in_progress"`, false},
		{"subtask cancelled", []Todo{{Content: "a", Status: Pending, Subtasks: []Subtask{{Content: "s", Status: Cancelled}}}}, `subtask 1.1 has status "cancelled"`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := CloneTodos(tt.todos)
			err := Validate(tt.todos)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Validate = %v, want error containing %q", err, tt.wantErr)
			}
			if errors.Is(err, ErrLimit) != tt.limit {
				t.Errorf("errors.Is(err, ErrLimit) = %v, want %v", !tt.limit, tt.limit)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
			if len(before) > 0 && before[0].Content != tt.todos[0].Content {
				t.Errorf("Validate changed the list")
			}
		})
	}
}

func TestParseStatus(t *testing.T) {
	tests := map[string]Status{
		"pending": Pending, "TODO": Pending, " in_progress ": InProgress, "in-progress": InProgress,
		"InProgress": InProgress, "done": Completed, "Completed": Completed, "complete": Completed,
		"cancelled": Cancelled, "canceled": Cancelled,
	}
	for in, want := range tests {
		if got, err := ParseStatus(in); err != nil || got != want {
			t.Errorf("ParseStatus(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "deleted", "finished", "in progress"} {
		if _, err := ParseStatus(bad); err == nil {
			t.Errorf("ParseStatus(%q) succeeded, want error", bad)
		}
	}
}

func TestCountsAndAllDone(t *testing.T) {
	todos := []Todo{{Status: Pending}, {Status: InProgress}, {Status: Completed}, {Status: Cancelled}, {Status: Completed}}
	c := CountTodos(todos)
	if c != (Counts{Total: 5, Pending: 1, InProgress: 1, Completed: 2, Cancelled: 1}) {
		t.Fatalf("CountTodos = %+v", c)
	}
	if c.Open() != 2 || c.Done() != 3 {
		t.Errorf("Open, Done = %d, %d; want 2, 3", c.Open(), c.Done())
	}
	if AllDone(nil) {
		t.Error("AllDone(empty) = true, want false")
	}
	if AllDone(todos) {
		t.Error("AllDone with open items = true")
	}
	if !AllDone([]Todo{{Status: Completed}, {Status: Cancelled}}) {
		t.Error("AllDone(completed, cancelled) = false")
	}
}

func TestCloneTodosIsDeep(t *testing.T) {
	orig := []Todo{{Content: "a", Status: Pending, Subtasks: subs(Pending)}}
	c := CloneTodos(orig)
	c[0].Content = "changed"
	c[0].Subtasks[0].Status = Completed
	if orig[0].Content != "a" || orig[0].Subtasks[0].Status != Pending {
		t.Fatalf("clone shares memory with the original: %+v", orig)
	}
	if CloneTodos(nil) != nil {
		t.Error("CloneTodos(nil) != nil")
	}
}

// TestValidateAgainstPrev: validate skips only texts equal to the valid
// list's at the same place, so it finds every error Validate finds, with
// the same message.
func TestValidateAgainstPrev(t *testing.T) {
	tooLong := strings.Repeat("x", MaxTextLen+1)
	prev := []Todo{
		{Content: "a", Status: Pending, ActiveForm: "doing a"},
		{Content: "b", Status: InProgress, Subtasks: []Subtask{{Content: "b1", Status: Completed, Evidence: "ran it"}, {Content: "b2", Status: Pending}}},
	}
	Normalize(prev)
	if err := Validate(prev); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		change  func(l []Todo) []Todo
		wantErr string
	}{
		{"unchanged", func(l []Todo) []Todo { return l }, ""},
		{"a subtask ticked", func(l []Todo) []Todo { l[1].Subtasks[1].Status = Completed; return l }, ""},
		{"items swapped", func(l []Todo) []Todo { l[0], l[1] = l[1], l[0]; return l }, ""},
		{"a subtask's text too long", func(l []Todo) []Todo { l[1].Subtasks[0].Content = tooLong; return l }, "subtask 2.1 text is 1001 characters"},
		{"an item's text emptied", func(l []Todo) []Todo { l[0].Content = " "; return l }, "todo 1 text is empty"},
		{"evidence not UTF-8", func(l []Todo) []Todo { l[1].Subtasks[0].Evidence = "\xff"; return l }, "subtask 2.1 evidence is not valid UTF-8"},
		{"an unknown status, text unchanged", func(l []Todo) []Todo { l[0].Status = "later"; return l }, `todo 1 has unknown status "later"`},
		{"a subtask's status, text unchanged", func(l []Todo) []Todo { l[1].Subtasks[1].Status = InProgress; return l }, "subtask 2.2 has status"},
		{"an item added with a long text", func(l []Todo) []Todo { return append(l, Todo{Content: tooLong, Status: Pending}) }, "todo 3 text is 1001 characters"},
		{"a text moved to where it is too long for nothing", func(l []Todo) []Todo { l[0].ActiveForm = l[1].Content; return l }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			todos := tt.change(CloneTodos(prev))
			err, full := ValidateAgainst(todos, prev), Validate(todos)
			if (err == nil) != (tt.wantErr == "") || err != nil && !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("validate = %v, want %q", err, tt.wantErr)
			}
			if fmt.Sprint(err) != fmt.Sprint(full) {
				t.Errorf("validate = %v, Validate = %v", err, full)
			}
		})
	}
}

// TestIsSubID: the table of small numbers says what the digit-by-digit
// check says.
func TestIsSubID(t *testing.T) {
	slow := func(s, item string, n int) bool {
		return len(s) > len(item)+1 && s[:len(item)] == item && s[len(item)] == '.' && isNumber(s[len(item)+1:], n)
	}
	for _, s := range []string{"", "1", "1.", "1.1", "1.01", "1.10", "12.7", "2.50", "2.51", "2.5x", "x.5", "1.1.1", "3.+4", "3.-4", "3.0"} {
		for _, item := range []string{"1", "2", "3", "12", ""} {
			for n := -1; n <= MaxSubtasks+2; n++ {
				if got, want := isSubID(s, item, n), slow(s, item, n); got != want {
					t.Errorf("isSubID(%q, %q, %d) = %v, want %v", s, item, n, got, want)
				}
			}
		}
	}
}
