package repl

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/todosh/todosh/todostore"
)

// regionList is a list of n items, every third one done, long enough to
// fold and to be cut at any width.
func regionList(n int) []todostore.Todo {
	var todos []todostore.Todo
	for i := 1; i <= n; i++ {
		st := todostore.Pending
		if i%3 == 0 {
			st = todostore.Completed
		}
		todos = append(todos, todostore.Todo{Content: fmt.Sprintf("item %d, a text long enough to be cut in a narrow window", i), Status: st})
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
					if w := todostore.Width(line); w > max(cols-1, 1) {
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

// regionRows counts the rows of lines after a reflow to cols.
func TestRegionRows(t *testing.T) {
	for _, c := range []struct {
		widths []int
		cols   int
		want   int
	}{
		{nil, 80, 0},
		{[]int{99, 10, 0}, 100, 3},
		{[]int{99, 10, 0}, 50, 4},
		{[]int{99, 50, 51}, 50, 5},
		{[]int{30}, 0, 1}, // size unknown: one row a line
	} {
		if got := regionRows(c.widths, c.cols); got != c.want {
			t.Errorf("regionRows(%v, %d) = %d, want %d", c.widths, c.cols, got, c.want)
		}
	}
}

// After the window narrows, the erase moves up over every row the reflowed
// region takes, and a frame ends at the start of its last line.
func TestRegionEraseAfterNarrowing(t *testing.T) {
	cols := 100
	var out bytes.Buffer
	l := newLiveRegion(&out, func() (int, int) { return cols, 30 }, palette{})
	l.Start(regionList(2))
	defer l.Stop()
	l.mu.Lock()
	defer l.mu.Unlock()
	if !strings.HasSuffix(out.String(), "\r") {
		t.Errorf("a frame does not end at the start of its line: %q", out.String())
	}
	// Status line (narrow), header, two items of 59 and 59 columns.
	cols = 50
	out.Reset()
	l.erase()
	if got := out.String(); got != "\r\x1b[4A\x1b[J" {
		t.Errorf("erase after narrowing to 50 = %q, want up 4 rows (status, header, an item split in two)", got)
	}
}
