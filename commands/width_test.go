package commands

import (
	"strings"
	"testing"

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
