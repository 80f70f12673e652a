package commands

import (
	"strings"
	"testing"
	"time"

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
				if w := todostore.Width(l); w > cols {
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
