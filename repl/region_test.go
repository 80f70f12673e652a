package repl

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/todosh/todosh/textwidth"
	"github.com/todosh/todosh/todolist"
)

// regionList is a list of n items, every third one done, long enough to
// fold and to be cut at any width.
func regionList(n int) []todolist.Todo {
	var todos []todolist.Todo
	for i := 1; i <= n; i++ {
		st := todolist.Pending
		if i%3 == 0 {
			st = todolist.Completed
		}
		todos = append(todos, todolist.Todo{Content: fmt.Sprintf("item %d, a text long enough to be cut in a narrow window", i), Status: st})
	}
	return todos
}

// At every size the region takes at most half the window's rows (at least
// its status line) and no line reaches the last column, so drawing it never
// scrolls and the terminal never wraps it.
func TestRegionFitsTheWindow(t *testing.T) {
	for _, n := range []int{0, 1, 3, 12, 40} {
		for _, rows := range []int{1, 2, 3, 4, 5, 6, 7, 10, 16, 30} {
			for _, cols := range []int{1, 5, 20, 50, 100} {
				l := newLiveRegion(&bytes.Buffer{}, func() (int, int) { return cols, rows }, palette{})
				l.Start(regionList(n))
				l.SetStatus("continuing in 3s — type to take over")
				l.mu.Lock()
				lines := l.lines()
				l.mu.Unlock()
				l.Stop()
				if len(lines) > max(rows/2, 1) {
					t.Errorf("%d items at %dx%d: %d lines, more than half the rows", n, cols, rows, len(lines))
				}
				for _, line := range lines {
					if w := textwidth.Width(line); w > max(cols-1, 1) {
						t.Errorf("%d items at %dx%d: line %q is %d wide", n, cols, rows, line, w)
					}
				}
			}
		}
	}
}

// The status line and the region of 16 rows: status plus seven list lines,
// the half the README promises.
func TestRegionHalfOf16(t *testing.T) {
	l := newLiveRegion(&bytes.Buffer{}, func() (int, int) { return 100, 16 }, palette{})
	l.Start(regionList(12))
	defer l.Stop()
	l.mu.Lock()
	defer l.mu.Unlock()
	lines := l.lines()
	if len(lines) != 8 || !strings.HasPrefix(lines[1], "Todo 4/12 done") {
		t.Errorf("region of a 16-row window:\n%s", strings.Join(lines, "\n"))
	}
}

// A frame ends with the cursor back at the start of its first line, so an
// erase after any resize is a clear to the end of the screen from there.
func TestRegionFrameEndsAtItsStart(t *testing.T) {
	cols := 100
	var out bytes.Buffer
	l := newLiveRegion(&out, func() (int, int) { return cols, 30 }, palette{})
	l.Start(regionList(2))
	defer l.Stop()
	l.mu.Lock()
	defer l.mu.Unlock()
	// Status line, header, two items: up three rows.
	if !strings.HasSuffix(out.String(), "window\r\x1b[3A") {
		t.Errorf("a frame does not end at its first line: %q", out.String())
	}
	cols = 50
	out.Reset()
	l.erase()
	if got := out.String(); got != "\r\x1b7\x1b[2K"+strings.Repeat("\x1b[B\x1b[2K", 29)+"\x1b8" {
		t.Errorf("erase after narrowing = %q, want every row cleared from the region's first line, one by one", got)
	}
	if strings.Contains(out.String(), "\x1b[J") {
		t.Errorf("erase uses erase-below, which tmux copies into the scrollback from the top row")
	}
}

// TestRegionSuspend: a stop takes the region off the screen, nothing
// draws it while todosh is stopped (a change, a line written), and the
// resume draws it again.
func TestRegionSuspend(t *testing.T) {
	var out bytes.Buffer
	l := newLiveRegion(&out, func() (int, int) { return 80, 24 }, palette{})
	l.Start([]todolist.Todo{{Content: "parse", Status: todolist.InProgress}})
	defer l.Stop()
	l.Suspend()
	if got := out.String(); !strings.HasSuffix(got, regionErase(24)) {
		t.Fatalf("the stop did not erase the region: %q", got)
	}
	out.Reset()
	l.SetActivity("Bash")
	l.Write([]byte("a line\n"))
	if got := out.String(); got != "a line\n" {
		t.Errorf("drawn while stopped: %q", got)
	}
	out.Reset()
	l.Resume()
	l.Stop() // no tick writes while out is read
	if got := out.String(); !strings.Contains(got, "parse") || !strings.Contains(got, "Bash") {
		t.Errorf("the resume did not draw the region: %q", got)
	}
}
