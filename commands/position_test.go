package commands

import (
	"math"
	"testing"

	"github.com/todosh/todosh/todostore"
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
func list3(t *testing.T) []todostore.Todo {
	return parseSpec(t, "-a;-b|[ ]b1|[ ]b2|[ ]b3;-c|[ ]c1")
}

// resolveCase is one position resolved against a list (list3 when todos
// is nil).
type resolveCase struct {
	pos       string
	todos     []todostore.Todo
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
		{pos: "0", wantErr: "position 0 out of range (1-3)"},
		{pos: "4", wantErr: "position 4 out of range (1-3)"},
		{pos: "99999999999999999999", wantErr: "position 99999999999999999999 out of range (1-3)"},
		{pos: "2.0", wantErr: "position 2.0 out of range (2.1-2.3)"},
		{pos: "2.4", wantErr: "position 2.4 out of range (2.1-2.3)"},
		{pos: "3.2", wantErr: "position 3.2 out of range (only 3.1)"},
		{pos: "1.1", wantErr: "position 1.1 out of range (todo 1 has no subtasks)"},
		{pos: "1.last", wantErr: "position 1.last out of range (todo 1 has no subtasks)"},
		{pos: "4.1", wantErr: "position 4.1 out of range (todos are 1-3)"},
		{pos: "0.1", wantErr: "position 0.1 out of range (todos are 1-3)"},
		{pos: "4.last", wantErr: "position 4.last out of range (todos are 1-3)"},
		{pos: "2", todos: []todostore.Todo{}, wantErr: "position 2 out of range (the list is empty)"},
		{pos: "last", todos: []todostore.Todo{}, wantErr: "position last out of range (the list is empty)"},
		{pos: "1.1", todos: []todostore.Todo{}, wantErr: "position 1.1 out of range (the list is empty)"},
		{pos: "2", todos: parseSpec(t, "-only"), wantErr: "position 2 out of range (only 1)"},
		{pos: "2.1", todos: parseSpec(t, "-only"), wantErr: "position 2.1 out of range (the only todo is 1)"},
	})
}

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
		{pos: "1", todos: []todostore.Todo{}, item: 0, sub: -1},
		{pos: "last", todos: []todostore.Todo{}, item: 0, sub: -1},
		{pos: "0", wantErr: "position 0 out of range (1-4)"},
		{pos: "5", wantErr: "position 5 out of range (1-4)"},
		{pos: "2.5", wantErr: "position 2.5 out of range (2.1-2.4)"},
		{pos: "2.0", wantErr: "position 2.0 out of range (2.1-2.4)"},
		{pos: "1.2", wantErr: "position 1.2 out of range (only 1.1)"},
		{pos: "4.1", wantErr: "position 4.1 out of range (todos are 1-3)"},
		{pos: "4.last", wantErr: "position 4.last out of range (todos are 1-3)"},
		{pos: "2", todos: []todostore.Todo{}, wantErr: "position 2 out of range (only 1)"},
		{pos: "1.1", todos: []todostore.Todo{}, wantErr: "position 1.1 out of range (the list is empty)"},
		{pos: "1.last", todos: []todostore.Todo{}, wantErr: "position 1.last out of range (the list is empty)"},
	})
}

func runResolveCases(t *testing.T, fn string, resolve func(Position, []todostore.Todo) (int, int, error), cases []resolveCase) {
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
