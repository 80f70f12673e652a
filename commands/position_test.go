package commands

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/todosh/todosh/todolist"
)

func TestParsePosition(t *testing.T) {
	forms := "(use N, last, N.M or N.last, e.g. 3, last, 2.1, 2.last)"
	tests := []struct {
		in      string
		want    Position
		wantErr string
	}{
		{in: "1", want: Position{Item: 1}},
		{in: "42", want: Position{Item: 42}},
		{in: "007", want: Position{Item: 7}},
		{in: "0", want: Position{Item: 0}},
		{in: "last", want: Position{Last: true}},
		{in: "2.1", want: Position{Item: 2, HasSub: true, Sub: 1}},
		{in: "2.0", want: Position{Item: 2, HasSub: true, Sub: 0}},
		{in: "10.25", want: Position{Item: 10, HasSub: true, Sub: 25}},
		{in: "3.last", want: Position{Item: 3, HasSub: true, SubLast: true}},
		{in: "99999999999999999999", want: Position{Item: math.MaxInt32}},
		{in: "1.99999999999999999999", want: Position{Item: 1, HasSub: true, Sub: math.MaxInt32}},
		{in: "", wantErr: "missing position " + forms},
		{in: "x", wantErr: `malformed position "x" ` + forms},
		{in: "-1", wantErr: `malformed position "-1" ` + forms},
		{in: "+1", wantErr: `malformed position "+1" ` + forms},
		{in: " 1", wantErr: `malformed position " 1" ` + forms},
		{in: "1 ", wantErr: `malformed position "1 " ` + forms},
		{in: "1.", wantErr: `malformed position "1." ` + forms},
		{in: ".1", wantErr: `malformed position ".1" ` + forms},
		{in: "1.2.3", wantErr: `malformed position "1.2.3" ` + forms},
		{in: "1..2", wantErr: `malformed position "1..2" ` + forms},
		{in: "last.1", wantErr: `malformed position "last.1" ` + forms},
		{in: "last.last", wantErr: `malformed position "last.last" ` + forms},
		{in: "Last", wantErr: `malformed position "Last" ` + forms},
		{in: "LAST", wantErr: `malformed position "LAST" ` + forms},
		{in: "1.Last", wantErr: `malformed position "1.Last" ` + forms},
		{in: "1.x", wantErr: `malformed position "1.x" ` + forms},
		{in: "1e3", wantErr: `malformed position "1e3" ` + forms},
		{in: "0x10", wantErr: `malformed position "0x10" ` + forms},
		{in: "١", wantErr: `malformed position "١" ` + forms}, // Arabic-Indic one: digits are ASCII only
		{in: "1,2", wantErr: `malformed position "1,2" ` + forms},
		{in: "\"1\"", wantErr: `malformed position "\"1\"" ` + forms},
	}
	for _, tc := range tests {
		got, err := ParsePosition(tc.in)
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("ParsePosition(%q) error = %v, want %q", tc.in, err, tc.wantErr)
			}
			if IsPositionForm(tc.in) {
				t.Errorf("IsPositionForm(%q) = true", tc.in)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParsePosition(%q): %v", tc.in, err)
			continue
		}
		tc.want.typed = tc.in
		if got != tc.want {
			t.Errorf("ParsePosition(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
		if got.String() != tc.in {
			t.Errorf("String() = %q, want %q", got.String(), tc.in)
		}
	}
}

// list3 is items 1 (no subtasks), 2 (three subtasks) and 3 (one subtask).
func list3(t *testing.T) []todolist.Todo {
	return parseSpec(t, "-a;-b|[ ]b1|[ ]b2|[ ]b3;-c|[ ]c1")
}

// resolveCase is one position resolved against a list (list3 when todos
// is nil).
type resolveCase struct {
	pos       string
	todos     []todolist.Todo
	item, sub int
	wantErr   string
}

func TestPositionTarget(t *testing.T) {
	runResolveCases(t, "Target", Position.Target, []resolveCase{
		{pos: "1", item: 0, sub: -1},
		{pos: "3", item: 2, sub: -1},
		{pos: "last", item: 2, sub: -1},
		{pos: "2.1", item: 1, sub: 0},
		{pos: "2.3", item: 1, sub: 2},
		{pos: "2.last", item: 1, sub: 2},
		{pos: "3.last", item: 2, sub: 0},
		{pos: "0", wantErr: "position 0 out of range: items are 1-3"},
		{pos: "4", wantErr: "position 4 out of range: items are 1-3"},
		{pos: "99999999999999999999", wantErr: "position 99999999999999999999 out of range: items are 1-3"},
		{pos: "2.0", wantErr: "position 2.0 out of range: item 2's subtasks are 2.1-2.3"},
		{pos: "2.4", wantErr: "position 2.4 out of range: item 2's subtasks are 2.1-2.3"},
		{pos: "3.2", wantErr: "position 3.2 out of range: item 3's only subtask is 3.1"},
		{pos: "1.1", wantErr: "position 1.1 out of range: item 1 has no subtasks"},
		{pos: "1.last", wantErr: "position 1.last out of range: item 1 has no subtasks"},
		{pos: "4.1", wantErr: "position 4.1 out of range: items are 1-3"},
		{pos: "0.1", wantErr: "position 0.1 out of range: items are 1-3"},
		{pos: "4.last", wantErr: "position 4.last out of range: items are 1-3"},
		{pos: "2", todos: []todolist.Todo{}, wantErr: "position 2 out of range: the list is empty"},
		{pos: "last", todos: []todolist.Todo{}, wantErr: "position last out of range: the list is empty"},
		{pos: "1.1", todos: []todolist.Todo{}, wantErr: "position 1.1 out of range: the list is empty"},
		{pos: "2", todos: parseSpec(t, "-only"), wantErr: "position 2 out of range: the only item is 1"},
		{pos: "2.1", todos: parseSpec(t, "-only"), wantErr: "position 2.1 out of range: the only item is 1"},
	})
}

// TestPositionInsertAt: /todo add's refusals say what the list holds and
// where an entry can go, also when an item has no subtasks yet (1.2 was
// "out of range (only 1.1)").
func TestPositionInsertAt(t *testing.T) {
	runResolveCases(t, "InsertAt", Position.InsertAt, []resolveCase{
		{pos: "1", item: 0, sub: -1},
		{pos: "4", item: 3, sub: -1},
		{pos: "last", item: 3, sub: -1},
		{pos: "2.1", item: 1, sub: 0},
		{pos: "2.4", item: 1, sub: 3},
		{pos: "2.last", item: 1, sub: 3},
		{pos: "1.1", item: 0, sub: 0},
		{pos: "1.last", item: 0, sub: 0},
		{pos: "3.2", item: 2, sub: 1},
		{pos: "1", todos: []todolist.Todo{}, item: 0, sub: -1},
		{pos: "last", todos: []todolist.Todo{}, item: 0, sub: -1},
		{pos: "0", wantErr: "position 0 out of range: items are 1-3 (1-3 inserts before that item, 4 or last appends)"},
		{pos: "5", wantErr: "position 5 out of range: items are 1-3 (1-3 inserts before that item, 4 or last appends)"},
		{pos: "2.5", wantErr: "position 2.5 out of range: item 2's subtasks are 2.1-2.3 (2.1-2.3 inserts before that subtask, 2.4 or 2.last appends)"},
		{pos: "2.0", wantErr: "position 2.0 out of range: item 2's subtasks are 2.1-2.3 (2.1-2.3 inserts before that subtask, 2.4 or 2.last appends)"},
		{pos: "1.2", wantErr: "position 1.2 out of range: item 1 has no subtasks (1.1 or 1.last adds the first)"},
		{pos: "3.3", wantErr: "position 3.3 out of range: item 3's only subtask is 3.1 (3.1 inserts before it, 3.2 or 3.last appends)"},
		{pos: "4.1", wantErr: "position 4.1 out of range: items are 1-3"},
		{pos: "4.last", wantErr: "position 4.last out of range: items are 1-3"},
		{pos: "2", todos: []todolist.Todo{}, wantErr: "position 2 out of range: the list is empty (1 or last adds the first)"},
		{pos: "3", todos: parseSpec(t, "-only"), wantErr: "position 3 out of range: the only item is 1 (1 inserts before it, 2 or last appends)"},
		{pos: "1.1", todos: []todolist.Todo{}, wantErr: "position 1.1 out of range: the list is empty (a subtask goes under an item: /todo add TEXT adds the first item)"},
		{pos: "1.last", todos: []todolist.Todo{}, wantErr: "position 1.last out of range: the list is empty (a subtask goes under an item: /todo add TEXT adds the first item)"},
	})
}

func runResolveCases(t *testing.T, fn string, resolve func(Position, []todolist.Todo) (int, int, error), cases []resolveCase) {
	t.Helper()
	for _, tc := range cases {
		todos := tc.todos
		if todos == nil {
			todos = list3(t)
		}
		p, err := ParsePosition(tc.pos)
		if err != nil {
			t.Fatal(err)
		}
		item, sub, err := resolve(p, todos)
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("%s(%q) error = %v, want %q", fn, tc.pos, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s(%q): %v", fn, tc.pos, err)
		} else if item != tc.item || sub != tc.sub {
			t.Errorf("%s(%q) = %d, %d, want %d, %d", fn, tc.pos, item, sub, tc.item, tc.sub)
		}
	}
}

func TestParseSelection(t *testing.T) {
	forms := "(" + selectionForms + ")"
	tests := []struct {
		in      string
		want    Selection
		wantErr string
	}{
		{in: "all", want: Selection{All: true}},
		{in: "3", want: Selection{From: Position{Item: 3, typed: "3"}}},
		{in: "last", want: Selection{From: Position{Last: true, typed: "last"}}},
		{in: "2.1", want: Selection{From: Position{Item: 2, HasSub: true, Sub: 1, typed: "2.1"}}},
		{in: "2-4", want: Selection{IsRange: true, From: Position{Item: 2, typed: "2"}, To: Position{Item: 4, typed: "4"}}},
		{in: "1-1", want: Selection{IsRange: true, From: Position{Item: 1, typed: "1"}, To: Position{Item: 1, typed: "1"}}},
		{in: "5-2", want: Selection{IsRange: true, From: Position{Item: 5, typed: "5"}, To: Position{Item: 2, typed: "2"}}},
		{in: "0-0", want: Selection{IsRange: true, From: Position{Item: 0, typed: "0"}, To: Position{Item: 0, typed: "0"}}},
		{in: "2-last", want: Selection{IsRange: true, From: Position{Item: 2, typed: "2"}, To: Position{Last: true, typed: "last"}}},
		{in: "2.1-2.3", want: Selection{IsRange: true, From: Position{Item: 2, HasSub: true, Sub: 1, typed: "2.1"}, To: Position{Item: 2, HasSub: true, Sub: 3, typed: "2.3"}}},
		{in: "2.2-2.last", want: Selection{IsRange: true, From: Position{Item: 2, HasSub: true, Sub: 2, typed: "2.2"}, To: Position{Item: 2, HasSub: true, SubLast: true, typed: "2.last"}}},
		{in: "", wantErr: "missing position " + forms},
		{in: "x", wantErr: `malformed position "x" ` + forms},
		{in: "-1", wantErr: `malformed position "-1" ` + forms},
		{in: "-", wantErr: `malformed position "-" ` + forms},
		{in: "All", wantErr: `malformed position "All" ` + forms},
		{in: "1.2.3", wantErr: `malformed position "1.2.3" ` + forms},
		{in: "2-", wantErr: `malformed range "2-" ` + forms},
		{in: "2-x", wantErr: `malformed range "2-x" ` + forms},
		{in: "2--4", wantErr: `malformed range "2--4" ` + forms},
		{in: "2-4-6", wantErr: `malformed range "2-4-6" ` + forms},
		{in: "last-2", wantErr: `malformed range "last-2" ` + forms},
		{in: "2.last-2.3", wantErr: `malformed range "2.last-2.3" ` + forms},
		{in: "2-2.3", wantErr: `malformed range "2-2.3" ` + forms},
		{in: "2.1-3", wantErr: `malformed range "2.1-3" ` + forms},
		{in: "2.1-last", wantErr: `malformed range "2.1-last" ` + forms},
		{in: "all-2", wantErr: `malformed range "all-2" ` + forms},
		{in: "2 - 4", wantErr: `malformed range "2 - 4" ` + forms},
		{in: "2.1-3.2", wantErr: `subtask range "2.1-3.2" spans two items: a subtask range stays within one item (e.g. 2.1-2.last), and an item range is N-M`},
	}
	for _, tc := range tests {
		got, err := ParseSelection(tc.in)
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("ParseSelection(%q) error = %v, want %q", tc.in, err, tc.wantErr)
			}
			if IsSelectionForm(tc.in) {
				t.Errorf("IsSelectionForm(%q) = true", tc.in)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseSelection(%q): %v", tc.in, err)
			continue
		}
		tc.want.typed = tc.in
		if got != tc.want {
			t.Errorf("ParseSelection(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
		if got.String() != tc.in || got.Single() != (!tc.want.All && !tc.want.IsRange) {
			t.Errorf("ParseSelection(%q): String() = %q, Single() = %v", tc.in, got.String(), got.Single())
		}
	}
}

func TestSelectionTargets(t *testing.T) {
	items := func(idx ...int) []Target {
		var out []Target
		for _, i := range idx {
			out = append(out, Target{Item: i, Sub: -1})
		}
		return out
	}
	subs := func(item int, idx ...int) []Target {
		var out []Target
		for _, j := range idx {
			out = append(out, Target{Item: item, Sub: j})
		}
		return out
	}
	tests := []struct {
		sel     string
		todos   []todolist.Todo // list3 when nil
		want    []Target
		wantErr string
	}{
		{sel: "all", want: items(0, 1, 2)},
		{sel: "2", want: items(1)},
		{sel: "last", want: items(2)},
		{sel: "2.3", want: subs(1, 2)},
		{sel: "1-3", want: items(0, 1, 2)},
		{sel: "2-3", want: items(1, 2)},
		{sel: "3-3", want: items(2)},
		{sel: "2-last", want: items(1, 2)},
		{sel: "3-last", want: items(2)},
		{sel: "2.1-2.3", want: subs(1, 0, 1, 2)},
		{sel: "2.2-2.last", want: subs(1, 1, 2)},
		{sel: "2.3-2.last", want: subs(1, 2)},
		{sel: "3.1-3.1", want: subs(2, 0)},
		{sel: "4", wantErr: "position 4 out of range: items are 1-3"},
		{sel: "3-1", wantErr: "range 3-1: start must be <= end (e.g. 1-3)"},
		{sel: "9-4", wantErr: "range 9-4: start must be <= end (e.g. 4-9)"},
		{sel: "0-2", wantErr: "range 0-2 out of bounds: valid range is 1-3"},
		{sel: "2-4", wantErr: "range 2-4 out of bounds: valid range is 1-3"},
		{sel: "4-4", wantErr: "range 4-4 out of bounds: valid range is 1-3"},
		{sel: "4-last", wantErr: "range 4-last out of bounds: valid range is 1-3"},
		{sel: "0-last", wantErr: "range 0-last out of bounds: valid range is 1-3"},
		{sel: "1-99999999999999999999", wantErr: "range 1-99999999999999999999 out of bounds: valid range is 1-3"},
		{sel: "2.3-2.1", wantErr: "range 2.3-2.1: start must be <= end (e.g. 2.1-2.3)"},
		{sel: "2.0-2.2", wantErr: "range 2.0-2.2 out of bounds: valid range is 2.1-2.3"},
		{sel: "2.2-2.4", wantErr: "range 2.2-2.4 out of bounds: valid range is 2.1-2.3"},
		{sel: "2.4-2.last", wantErr: "range 2.4-2.last out of bounds: valid range is 2.1-2.3"},
		{sel: "1.1-1.2", wantErr: "range 1.1-1.2 out of bounds (item 1 has no subtasks)"},
		{sel: "4.1-4.2", wantErr: "range 4.1-4.2 out of bounds (items are 1-3)"},
		{sel: "0.1-0.2", wantErr: "range 0.1-0.2 out of bounds (items are 1-3)"},
		{sel: "all", todos: []todolist.Todo{}, wantErr: "position all out of range: the list is empty"},
		{sel: "1-1", todos: []todolist.Todo{}, wantErr: "range 1-1 out of bounds (the list is empty)"},
		{sel: "1-last", todos: []todolist.Todo{}, wantErr: "range 1-last out of bounds (the list is empty)"},
		{sel: "1.1-1.2", todos: []todolist.Todo{}, wantErr: "range 1.1-1.2 out of bounds (the list is empty)"},
		{sel: "1-2", todos: parseSpec(t, "-only"), wantErr: "range 1-2 out of bounds: valid range is 1-1"},
	}
	for _, tc := range tests {
		todos := tc.todos
		if todos == nil {
			todos = list3(t)
		}
		sel, err := ParseSelection(tc.sel)
		if err != nil {
			t.Fatal(err)
		}
		got, err := sel.Targets(todos)
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("Targets(%q) error = %v, want %q", tc.sel, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("Targets(%q): %v", tc.sel, err)
		} else if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Targets(%q) = %v, want %v", tc.sel, got, tc.want)
		}
	}
}

// TestDeleteRangeProperty is the range rule through the real command and
// store: on a list of L items, /todo delete N-M removes exactly M-N+1
// items (the others keep their order) when 1 <= N <= M <= L, and refuses
// everything else with one line, leaving the file byte for byte as it was.
func TestDeleteRangeProperty(t *testing.T) {
	reg := NewRegistry()
	for l := 0; l <= 5; l++ {
		for n := 0; n <= l+2; n++ {
			for m := 0; m <= l+2; m++ {
				env, _ := newTestEnv(t)
				var names []string
				spec := ""
				for i := 1; i <= l; i++ {
					names = append(names, fmt.Sprintf("item %d", i))
					spec += fmt.Sprintf(";-item %d", i)
				}
				if l > 0 {
					writeSession(t, env.Store, env.SessionID, "/w", parseSpec(t, spec[1:]), time.Minute)
				}
				before := snapshotStore(t, env.Store.Root)
				err := reg.Run(env, fmt.Sprintf("/todo delete %d-%d", n, m))
				valid := 1 <= n && n <= m && m <= l
				if !valid {
					if err == nil || strings.Contains(err.Error(), "\n") {
						t.Errorf("L=%d: delete %d-%d = %v, want a one-line refusal", l, n, m, err)
					}
					if diff := diffSnapshots(before, snapshotStore(t, env.Store.Root)); len(diff) > 0 {
						t.Errorf("L=%d: refused delete %d-%d changed %v", l, n, m, diff)
					}
					continue
				}
				if err != nil {
					t.Errorf("L=%d: delete %d-%d: %v", l, n, m, err)
					continue
				}
				var got []string
				for _, td := range mustLoad(t, env).Todos {
					got = append(got, td.Content)
				}
				want := append(append([]string{}, names[:n-1]...), names[m:]...)
				if len(got) != l-(m-n+1) || !slices.Equal(got, want) {
					t.Errorf("L=%d: delete %d-%d left %q, want %q", l, n, m, got, want)
				}
			}
		}
	}
}

// TestRangeIsAllOrNothing: a range of which one item is refused changes
// no item, for every command that takes one.
func TestRangeIsAllOrNothing(t *testing.T) {
	reg := NewRegistry()
	for _, line := range []string{
		"/todo done 1-3",  // item 2 has open subtasks
		"/todo undo all",  // item 3 has a ticked subtask
		"/todo start 1-3", // item 3 has all its subtasks ticked
		"/todo cancel 2.1-2.2",
		"/todo unset 2-3",
		"/todo set all",
	} {
		env, _ := newTestEnv(t)
		writeSession(t, env.Store, env.SessionID, "/w", parseSpec(t, "-a;-b|[ ]b1|[ ]b2;-c|[x]c1;+d"), time.Minute)
		before := snapshotStore(t, env.Store.Root)
		if err := reg.Run(env, line); err == nil {
			t.Errorf("%s succeeded, want a refusal", line)
		}
		if diff := diffSnapshots(before, snapshotStore(t, env.Store.Root)); len(diff) > 0 {
			t.Errorf("refused %s changed %v", line, diff)
		}
	}
}

// TestStatusCommands checks each status command on single items and
// subtasks, by the statuses it leaves.
func TestStatusCommands(t *testing.T) {
	tests := []struct {
		spec, line, want string
	}{
		{"-a;+b", "/todo start 2", "-a;>b"},
		{"-a;+b", "/todo set 1-2", ">a;>b"},
		{"xa", "/todo set 1", ">a"},
		{">a;+b", "/todo unset all", "-a;-b"},
		{"xa;xb", "/todo undo 1-2", "-a;-b"},
		{"-a;>b", "/todo cancel all", "xa;xb"},
		{"+a;-b|[x]b1|[x]b2", "/todo start 2.2", "+a;>b|[x]b1|[ ]b2"},
		{"-a|[ ]a1", "/todo start 1.1", ">a|[ ]a1"},
		{"-a|[ ]a1", "/todo start 1", ">a|[ ]a1"},
		{"xa|[x]a1|[ ]a2", "/todo start 1.2", ">a|[x]a1|[ ]a2"},
		{"-a|[ ]a1|[ ]a2", "/todo cancel 1", "xa|[ ]a1|[ ]a2"},
		{"xa|[x]a1|[ ]a2", "/todo undo 1", ">a|[x]a1|[ ]a2"},
		{"-a|[ ]a1|[ ]a2", "/todo done 1.1-1.last", "+a|[x]a1|[x]a2"},
		// Unticking every subtask keeps the item started, by the derived rule.
		{"+a|[x]a1|[x]a2", "/todo undo 1.1-1.2", ">a|[ ]a1|[ ]a2"},
	}
	reg := NewRegistry()
	for _, tc := range tests {
		env, _ := newTestEnv(t)
		writeSession(t, env.Store, env.SessionID, "/w", parseSpec(t, tc.spec), time.Minute)
		if err := reg.Run(env, tc.line); err != nil {
			t.Errorf("%s on %s: %v", tc.line, tc.spec, err)
			continue
		}
		want := parseSpec(t, tc.want)
		got := mustLoad(t, env).Todos
		for i := range want {
			want[i].Origin, want[i].Evidence = got[i].Origin, got[i].Evidence
			want[i].UID, want[i].Rev = got[i].UID, got[i].Rev // the store's marks (todostore/revs.go)
			for j := range min(len(want[i].Subtasks), len(got[i].Subtasks)) {
				want[i].Subtasks[j].UID, want[i].Subtasks[j].Rev = got[i].Subtasks[j].UID, got[i].Subtasks[j].Rev
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s on %s = %+v, want %s", tc.line, tc.spec, got, tc.want)
		}
	}
}

func TestLooksLikePosition(t *testing.T) {
	for in, want := range map[string]bool{
		"1.2.3": true, "-1": true, "2-4": true, "1.": true, ".1": true, "last.2": true, "2-last": true,
		"1..2": true, "+3": true, "2024-01-05": true, "1-": true, "lastlast": true, "last-": true,
		"2nd": false, "3D": false, "-": false, "--": false, "lastly": false, "last-minute": false,
		"all": false, "x1": false, `"1.2.3"`: false, "'2-4'": false, "1e3": false, "a-1": false, "": false,
	} {
		if got := looksLikePosition(in); got != want {
			t.Errorf("looksLikePosition(%q) = %v, want %v", in, got, want)
		}
	}
}
