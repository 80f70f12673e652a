package todolist

import (
	"reflect"
	"strings"
	"testing"
)

// sample is a normalized list: 1 pending, 2 with subtasks 2.1 done and 2.2
// open, 3 completed.
func sample() []Todo {
	todos := []Todo{
		{Content: "one", Status: Pending},
		{Content: "two", Status: InProgress, Subtasks: subs(Completed, Pending)},
		{Content: "three", Status: Completed},
	}
	Normalize(todos)
	return todos
}

// contents lists todo texts, with subtasks as "parent/sub", for compact
// comparisons.
func contents(todos []Todo) string {
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

func TestInsertTodo(t *testing.T) {
	tests := []struct {
		name  string
		index int
		todo  Todo
		want  string
	}{
		{"first", 0, Todo{Content: "new"}, "1:new=pending | 2:one=pending"},
		{"middle", 1, Todo{Content: "new"}, "1:one=pending | 2:new=pending"},
		{"append", 3, Todo{Content: "new", Status: InProgress}, "4:new=in_progress"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := sample()
			got, err := InsertTodo(in, tt.index, tt.todo)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(in, sample()) {
				t.Errorf("InsertTodo changed its input: %s", contents(in))
			}
			if len(got) != 4 || !strings.Contains(contents(got), tt.want) {
				t.Errorf("got %s, want it to contain %s", contents(got), tt.want)
			}
		})
	}
}

func TestInsertTodoErrors(t *testing.T) {
	full := make([]Todo, MaxTodos)
	for i := range full {
		full[i] = Todo{Content: "x", Status: Pending}
	}
	Normalize(full)
	tests := []struct {
		name    string
		list    []Todo
		index   int
		text    string
		wantErr string
	}{
		{"negative index", sample(), -1, "x", "index -1 out of range"},
		{"past end", sample(), 4, "x", "index 4 out of range"},
		{"full", full, 0, "x", "the list has 100 todos, the limit"},
		{"empty text", sample(), 0, "  ", "text is empty"},
		{"too long", sample(), 0, strings.Repeat("a", MaxTextLen+1), "over the limit of 1000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := CloneTodos(tt.list)
			got, err := InsertTodo(tt.list, tt.index, Todo{Content: tt.text})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			if !reflect.DeepEqual(tt.list, before) || !reflect.DeepEqual(got, before) {
				t.Errorf("list changed on error")
			}
		})
	}
}

func TestInsertSubtask(t *testing.T) {
	tests := []struct {
		name        string
		item, index int
		want        string
	}{
		{"subtask to plain item", 0, 0, "1:one=pending 1.1:new=pending"},
		{"before first", 1, 0, "2:two=in_progress 2.1:new=pending 2.2:s1=completed 2.3:s2=pending"},
		{"append", 1, 2, "2:two=in_progress 2.1:s1=completed 2.2:s2=pending 2.3:new=pending"},
		// A completed item gains an open subtask: by the derived-status rule it reopens.
		{"reopens completed", 2, 0, "3:three=pending 3.1:new=pending"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list := sample()
			if err := InsertSubtask(list, tt.item, tt.index, Subtask{Content: "new"}); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(contents(list), tt.want) {
				t.Errorf("got %s, want it to contain %s", contents(list), tt.want)
			}
		})
	}
}

func TestInsertSubtaskErrors(t *testing.T) {
	fullItem := func() []Todo {
		l := sample()
		for len(l[0].Subtasks) < MaxSubtasks {
			l[0].Subtasks = append(l[0].Subtasks, Subtask{Content: "s", Status: Pending})
		}
		Normalize(l)
		return l
	}
	tests := []struct {
		name        string
		list        []Todo
		item, index int
		text        string
		wantErr     string
	}{
		{"negative", sample(), 1, -1, "x", "index -1 out of range"},
		{"past end", sample(), 1, 3, "x", "index 3 out of range"},
		{"full", fullItem(), 0, 0, "x", "todo 1 has 50 subtasks, the limit"},
		{"empty", sample(), 1, 0, "", "text is empty"},
		{"too long", sample(), 1, 0, strings.Repeat("a", MaxTextLen+1), "over the limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := CloneTodos(tt.list)
			err := InsertSubtask(tt.list, tt.item, tt.index, Subtask{Content: tt.text})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			if !reflect.DeepEqual(tt.list, before) {
				t.Errorf("list changed on error")
			}
		})
	}
}

func TestRemove(t *testing.T) {
	list := sample()
	orig := CloneTodos(list)
	got := RemoveTodo(list, 0)
	if want := "1:two=in_progress 1.1:s1=completed 1.2:s2=pending | 2:three=completed"; contents(got) != want {
		t.Errorf("RemoveTodo = %s, want %s", contents(got), want)
	}
	if !reflect.DeepEqual(list, orig) {
		t.Errorf("RemoveTodo changed its input")
	}

	list = sample()
	RemoveSubtask(list, 1, 1) // the open one: all remaining done
	if want := "2:two=completed 2.1:s1=completed"; !strings.Contains(contents(list), want) {
		t.Errorf("RemoveSubtask = %s, want %s", contents(list), want)
	}
	RemoveSubtask(list, 1, 0)
	if list[1].Subtasks != nil || list[1].Status != Completed {
		t.Errorf("removing the last subtask: %+v, want no subtasks and the last status", list[1])
	}
}

func TestSetStatus(t *testing.T) {
	tests := []struct {
		name string
		item int
		st   Status
		want string
	}{
		{"plain done", 0, Completed, "1:one=completed |"},
		{"plain in progress", 0, InProgress, "1:one=in_progress |"},
		{"plain cancel", 0, Cancelled, "1:one=cancelled |"},
		{"reopen plain", 2, Pending, "3:three=pending"},
		{"cancel parent", 1, Cancelled, "2:two=cancelled 2.1:s1=completed 2.2:s2=pending"},
		{"start parent keeps derived", 1, InProgress, "2:two=in_progress 2.1:s1=completed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list := sample()
			if err := SetStatus(list, tt.item, tt.st); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(contents(list), tt.want) {
				t.Errorf("got %s, want it to contain %s", contents(list), tt.want)
			}
		})
	}
}

// Reopening an item whose status follows ticked subtasks would have to
// untick them silently; it is refused and names them instead.
func TestSetStatusRefusesReopeningTickedSubtasks(t *testing.T) {
	list := sample()
	before := CloneTodos(list)
	err := SetStatus(list, 1, Pending)
	if err == nil || !strings.Contains(err.Error(), "todo 2 has ticked subtasks 2.1: untick them instead") {
		t.Fatalf("err = %v", err)
	}
	if !reflect.DeepEqual(list, before) {
		t.Errorf("a refused reopen changed the list: %s", contents(list))
	}
	if err := SetSubtaskStatus(list, 1, 0, Pending); err != nil {
		t.Fatal(err)
	}
	if err := SetStatus(list, 1, Pending); err != nil || list[1].Status != Pending {
		t.Errorf("with no tick left: err = %v, status %s; want pending", err, list[1].Status)
	}
}

func TestSetStatusRefusesOpenSubtasks(t *testing.T) {
	list := sample()
	list[1].Subtasks = append(list[1].Subtasks, Subtask{Content: "s3", Status: Pending})
	Normalize(list)
	before := CloneTodos(list)
	err := SetStatus(list, 1, Completed)
	if err == nil || !strings.Contains(err.Error(), "todo 2 has open subtasks 2.2, 2.3: tick them first") {
		t.Fatalf("err = %v", err)
	}
	if !reflect.DeepEqual(list, before) {
		t.Errorf("list changed on error")
	}
	// With every subtask ticked, completing is allowed (and a no-op).
	list[1].Subtasks[1].Status, list[1].Subtasks[2].Status = Completed, Completed
	if err := SetStatus(list, 1, Completed); err != nil {
		t.Errorf("completing with all subtasks done: %v", err)
	}
}

func TestSetSubtaskStatus(t *testing.T) {
	list := sample()
	if err := SetSubtaskStatus(list, 1, 1, Completed); err != nil {
		t.Fatal(err)
	}
	if list[1].Status != Completed {
		t.Errorf("all ticked: parent %s, want completed", list[1].Status)
	}
	if err := SetSubtaskStatus(list, 1, 0, Pending); err != nil {
		t.Fatal(err)
	}
	if list[1].Status != InProgress {
		t.Errorf("one unticked: parent %s, want in_progress", list[1].Status)
	}
	// Unticking under a cancelled parent reopens the parent.
	list[1].Status = Cancelled
	if err := SetSubtaskStatus(list, 1, 1, Pending); err != nil {
		t.Fatal(err)
	}
	if list[1].Status != Pending {
		t.Errorf("untick under cancelled: parent %s, want pending", list[1].Status)
	}
	before := CloneTodos(list)
	for _, bad := range []Status{InProgress, Cancelled, "x"} {
		if err := SetSubtaskStatus(list, 1, 0, bad); err == nil || !strings.Contains(err.Error(), "subtasks are pending or completed") {
			t.Errorf("SetSubtaskStatus(%s) err = %v", bad, err)
		}
	}
	if !reflect.DeepEqual(list, before) {
		t.Errorf("list changed on error")
	}
}

func TestOpenSubtaskIDs(t *testing.T) {
	if got := OpenSubtaskIDs(sample()[1]); !reflect.DeepEqual(got, []string{"2.2"}) {
		t.Errorf("OpenSubtaskIDs = %v", got)
	}
	// Ids missing (not yet normalized) are derived from positions.
	raw := Todo{ID: "4", Subtasks: []Subtask{{Status: Pending}, {Status: Completed}, {Status: Pending}}}
	if got := OpenSubtaskIDs(raw); !reflect.DeepEqual(got, []string{"4.1", "4.3"}) {
		t.Errorf("OpenSubtaskIDs = %v", got)
	}
	if got := OpenSubtaskIDs(Todo{}); got != nil {
		t.Errorf("no subtasks: %v", got)
	}
}

func TestFindID(t *testing.T) {
	list := sample()
	tests := []struct {
		id        string
		item, sub int
		wantErr   string
	}{
		{"1", 0, -1, ""},
		{" 3 ", 2, -1, ""},
		{"2.2", 1, 1, ""},
		{"0", 0, 0, `no todo with id "0" (the list has 3)`},
		{"4", 0, 0, `no todo with id "4"`},
		{"x", 0, 0, `no todo with id "x"`},
		{"", 0, 0, `no todo with id ""`},
		{"1.1", 0, 0, `no subtask with id "1.1" (todo 1 has 0 subtasks)`},
		{"2.3", 0, 0, `no subtask with id "2.3"`},
		{"2.x", 0, 0, `no subtask with id "2.x"`},
		{"2.0", 0, 0, `no subtask with id "2.0"`},
	}
	for _, tt := range tests {
		item, sub, err := FindID(list, tt.id)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("FindID(%q) err = %v, want %q", tt.id, err, tt.wantErr)
			}
			continue
		}
		if err != nil || item != tt.item || sub != tt.sub {
			t.Errorf("FindID(%q) = %d, %d, %v; want %d, %d", tt.id, item, sub, err, tt.item, tt.sub)
		}
	}
}
