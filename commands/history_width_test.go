package commands

import (
	"strings"
	"testing"
	"time"

	"github.com/todosh/todosh/textwidth"
	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/todostore"
)

// /todo history fits any window: the header and every row wrap at words,
// no line is wider than the window, and a change's words lose nothing
// (the closing quote of a long item stays).
func TestHistoryFitsTheWidth(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	long := `added 2 "Write a very long item text that goes on and on p…"`
	lines := []todostore.HistoryLine{
		{N: 1, At: now, By: todolist.ByYou, What: `added 1 "Create the project skeleton"`},
		{N: 2, At: now, By: todolist.ByYou, What: long},
		{N: 3, At: now, By: todolist.ByAgent, What: "agent wrote a list of 3 items"},
	}
	for _, cols := range []int{20, 30, 40, 50, 60, 80, 100} {
		out := renderHistory(lines, 1, now, cols)
		for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if w := textwidth.Width(l); w > cols {
				t.Errorf("at %d columns a line is %d wide: %q", cols, w, l)
			}
		}
		if flat := strings.Join(strings.Fields(out), " "); !strings.Contains(flat, long) {
			t.Errorf("at %d columns the long change lost words:\n%s", cols, out)
		}
		if strings.Contains(out, "agent  agent") || strings.Contains(out, "agent agent") {
			t.Errorf("at %d columns the author is named twice:\n%s", cols, out)
		}
	}
	// Not a terminal: one line a change, as before.
	if out := renderHistory(lines, 1, now, 0); !strings.Contains(out, " 2  12:00:00      you            "+long+"\n") {
		t.Errorf("without a width:\n%s", out)
	}
}
