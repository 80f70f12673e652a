package todoview

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/todosh/todosh/todolist/todolisttest"

	"github.com/todosh/todosh/todolist"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// golden compares got with testdata/name, or rewrites the file with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -update rewrites it)\n--- got\n%s--- want\n%s", path, got, want)
	}
}

func TestFormatListGolden(t *testing.T) {
	twelve := make([]todolist.Todo, 12)
	for i := range twelve {
		twelve[i] = todolist.Todo{Content: "item " + strings.Repeat("x", i), Status: todolist.Pending}
	}
	twelve[9].Subtasks = todolisttest.Subs(todolist.Completed, todolist.Pending)
	twelve[10].Status = todolist.InProgress
	twelve[11].Status = todolist.Completed
	todolist.Normalize(twelve)

	tests := []struct {
		name  string
		todos []todolist.Todo
	}{
		{"empty", nil},
		{"design", todolisttest.DesignExample()},
		{"evidence", []todolist.Todo{
			{Content: "Run the test suite", Status: todolist.Completed, Evidence: "go test ./... ok\n12 packages"},
			{Content: "Ship it", Status: todolist.InProgress, Subtasks: []todolist.Subtask{
				{Content: "tag", Status: todolist.Completed, Evidence: "v1.2.0"},
				{Content: "announce", Status: todolist.Pending},
			}},
		}},
		{"cancelled", []todolist.Todo{
			{Content: "Dropped idea", Status: todolist.Cancelled},
			{Content: "Cancelled with subtasks", Status: todolist.Cancelled, Subtasks: todolisttest.Subs(todolist.Completed, todolist.Pending)},
			{Content: "Still to do", Status: todolist.Pending},
		}},
		{"alignment", twelve},
		{"multiline", []todolist.Todo{
			{Content: "first line\nsecond line\r\nthird\ttabbed", Status: todolist.InProgress},
			{Content: "parent", Status: todolist.Pending, Subtasks: []todolist.Subtask{{Content: "sub\nwith newline", Status: todolist.Pending}}},
		}},
		{"long text", []todolist.Todo{{Content: strings.Repeat("long ", 12), Status: todolist.InProgress}}},
		{"unknown status", []todolist.Todo{{Content: "written by a newer todosh", Status: "blocked"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			todolist.Normalize(tt.todos)
			golden(t, filepath.Join("format", strings.ReplaceAll(tt.name, " ", "-")+".txt"), FormatList(tt.todos))
		})
	}
}

// TestFormatListDesign pins that example, so a change to the format
// shows up as a failure here and not only as a golden diff. The padding
// before a note is compared as "at least two spaces": the design draws the note
// at column 43, format.go's noteColumn is 40, and golden files elsewhere
// already follow format.go.
func TestFormatListDesign(t *testing.T) {
	squeeze := regexp.MustCompile(`  +\(`)
	want := "Todo 1/3 done\n" +
		" 1. ✓ Create project skeleton\n" +
		" 2. ▸ Implement the parser                 (in progress, 1/2)\n" +
		"    2.1 [x] quoted fields\n" +
		"    2.2 [ ] CRLF endings\n" +
		" 3. ○ Write unit tests\n"
	if got := FormatList(todolisttest.DesignExample()); squeeze.ReplaceAllString(got, "  (") != squeeze.ReplaceAllString(want, "  (") {
		t.Errorf("FormatList =\n%s\nwant (the design example)\n%s", got, want)
	}
}

// Text from agents and other programs must not act on the terminal.
func TestFormatListNeutralisesControlCharacters(t *testing.T) {
	out := FormatList([]todolist.Todo{{ID: "1", Content: "evil\x1b]0;pwned\x07\x1b[2J x\u202eyz\u0085", Status: todolist.Pending}})
	for _, r := range out {
		if r != '\n' && todolist.IsDisplayControl(r) {
			t.Fatalf("FormatList kept control character %U: %q", r, out)
		}
	}
	if !strings.Contains(out, "evil ]0;pwned  [2J x yz") {
		t.Errorf("FormatList = %q, want the text with each control character as a space", out)
	}
}

func TestShortLine(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"  a \n\t b  ", 0, "a b"},
		{"esc\x1b[2J here", 0, "esc [2J here"},
		{"abcdef", 4, "abc…"},
		{"abcd", 4, "abcd"},
		{"é✓é✓é", 3, "é✓…"},
	}
	for _, tt := range tests {
		if got := todolist.ShortLine(tt.in, tt.n); got != tt.want {
			t.Errorf("ShortLine(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}
