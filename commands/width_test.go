package commands

import (
	"strings"
	"testing"
	"time"

	"github.com/todosh/todosh/textwidth"
	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/todostore"
)

// /help, /help todo, /todo show, /todo list and /todo history fit the terminal's width, down to 20
// columns; a script (no width) gets the lines unwrapped.
func TestOutputFitsWidth(t *testing.T) {
	for _, cols := range []int{20, 40, 80, 120} {
		env, out := newTestEnv(t)
		env.Width = func() int { return cols }
		reg := NewRegistry()
		for _, line := range []string{"/todo add Implement the parser for the configuration file format", "/todo add 日本語のドキュメントを書く", "/help", "/help todo", "/help todo add", "/todo show", "/todo list", "/todo history", "/todo history show 2"} {
			out.Reset()
			if err := reg.Run(env, line); err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
				if w := textwidth.Width(l); w > cols {
					t.Errorf("%s at %d columns: line of %d: %q", line, cols, w, l)
				}
			}
		}
	}
	env, out := newTestEnv(t)
	if err := NewRegistry().Run(env, "/help todo"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "this session's todo list; bare /todo is /todo show") {
		t.Errorf("without a width /help is wrapped:\n%s", out)
	}
}

// /todo list rows too wide for the terminal hang under the age column,
// the current row ("1*") and the others ("2 ", a blank mark) alike: seen at
// 100 columns, where row 2's directory hung at column 3.
func TestListRowsHangAlike(t *testing.T) {
	env, out := newTestEnv(t)
	env.Width = func() int { return 72 }
	if err := NewRegistry().Run(env, `/todo add "Implement the CSV parser"`); err != nil {
		t.Fatal(err)
	}
	writeSession(t, env.Store, "20261125-151321-cbde", "/tmp/verify/clone/a/rather/long/directory", parseSpec(t, "+one;-write the README"), time.Hour)
	writeSession(t, env.Store, "20261125-151437-4a11", "/tmp/verify/clone", parseSpec(t, "-write the parser"), 2*time.Hour)
	out.Reset()
	if err := NewRegistry().Run(env, "/todo list"); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	age := strings.Index(lines[1], "just now")
	var hangs []int
	for _, l := range lines[1:] {
		if l[0] == ' ' {
			hangs = append(hangs, len(l)-len(strings.TrimLeft(l, " ")))
		}
	}
	if len(hangs) < 3 {
		t.Fatalf("want every row wrapped at 72 columns:\n%s", out)
	}
	for _, h := range hangs {
		if h != age {
			t.Errorf("a row's further line hangs at %d, the age column is %d:\n%s", h, age, out)
		}
	}
}

// /todo cost's rows line up: every row's "in" column is at the same
// display column, whether its time is "—" (one column, three bytes) or
// "3s", and whether it is an item, an item no longer on the list, or the
// unattributed and total rows (seen by hand: those two sat 5 columns left
// of the items', and a "—" time 2 columns left).
func TestLedgerColumnsLineUp(t *testing.T) {
	l := todostore.Ledger{
		Items: []todostore.Cost{
			{UID: "t1", Pos: 1, Content: "write the README", Status: todolist.Completed},
			{UID: "t2", Pos: 2, Content: "Implement the CSV parser", Status: todolist.InProgress, InProgress: 3 * time.Second, In: 1200, Out: 80, Calls: 3},
			{UID: "t3", Content: "日本語のドキュメント", InProgress: 12 * time.Minute, In: 5, Calls: 1},
		},
		Unattributed: todostore.Cost{In: 500, Out: 62, Calls: 5},
		Total:        todostore.Cost{InProgress: 12*time.Minute + 3*time.Second, In: 1705, Out: 142, Calls: 9},
	}
	lines := strings.Split(strings.TrimSuffix(FormatLedger(l, 0), "\n"), "\n")[1:]
	if len(lines) != 5 {
		t.Fatalf("want 5 rows, got %d:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	col := func(l, word string) int {
		i := strings.LastIndex(l, word)
		if i < 0 {
			t.Fatalf("no %q in %q", word, l)
		}
		return textwidth.Width(l[:i])
	}
	for _, word := range []string{"  in ", "  out ", " tool call"} {
		want := col(lines[0], word)
		for _, l := range lines[1:] {
			if got := col(l, word); got != want {
				t.Errorf("%q at column %d, want %d (as in %q): %q", word, got, want, lines[0], l)
			}
		}
	}
}
