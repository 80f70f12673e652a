package e2e_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// fillFake puts n open items on fakeshell's session, so its live region is
// taller than a small window.
func fillFake(t *testing.T, h home, n int) {
	t.Helper()
	args := []string{"--session", "fake"}
	for i := 1; i <= n; i++ {
		args = append(args, "-c", fmt.Sprintf("/todo add item %d of the long list, with words enough to wrap a narrow window", i))
	}
	if r := h.script(t, h.dir, "", args...); r.code != 0 {
		t.Fatalf("filling the list: exit %d, %s", r.code, r.stderr)
	}
}

// frames counts the live region's redraws in raw: each erases the last
// one, row by row from the saved cursor (or, before, with erase-below).
func frames(raw string) int { return strings.Count(raw, "\x1b7") + strings.Count(raw, "\x1b[J") }

// frameEnd matches the end of a frame of the live region: the cursor
// back at the start of its first line.
var frameEnd = regexp.MustCompile(`\r(\x1b\[\d+A)?$`)

// vtNow is the screen model of everything shown so far, taken between two
// frames of the live region, so no half-drawn frame is seen.
func (tm *term) vtNow() *vt {
	tm.t.Helper()
	var v *vt
	waitFor(tm.t.(*testing.T), "a whole frame", func() bool {
		tm.mu.Lock()
		defer tm.mu.Unlock()
		if !frameEnd.Match(tm.raw) {
			return false
		}
		v = tm.replayVT()
		return true
	})
	return v
}

// regionRows is how many rows of the screen the live region takes now: from
// its status line to the last row written.
func regionRows(v *vt) int {
	start, end := -1, 0
	for i, row := range v.grid {
		text := rowText(row)
		if spinnerLine.MatchString(text) {
			start = i
		}
		if text != "" {
			end = i
		}
	}
	if start < 0 {
		return 0
	}
	return end - start + 1
}

// Resizing mid-turn, during the countdown (as tmux resize-window does, on
// the screen model of vt_test.go), never makes frames of the live region
// pile up in the scrollback: a window made shorter than the region clips it
// to half the new height and no erase from the top row is copied into the
// history (tmux's scroll-on-clear put every frame there), a narrower one
// (which splits the region's lines in a terminal that reflows) is erased
// whole, and both survive growing back. At most the one copy the terminal
// itself moves into its history at the resize stays. The region never
// takes more than half the rows, and during the countdown the status line
// no longer names the last tool call.
func TestLiveRegionResizeMidTurn(t *testing.T) {
	for _, c := range []struct {
		name  string
		sizes [][2]int
	}{
		{"shorter", [][2]int{{100, 10}}},
		{"narrower", [][2]int{{50, 30}}},
		{"both and back", [][2]int{{40, 8}, {100, 30}}},
		{"half of 16", [][2]int{{100, 16}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHome(t)
			fillFake(t, h, 12)
			tm := h.startSized(t, 100, 30, fakeshell, []string{"FAKESHELL_DELAY=2s", "NO_COLOR=1"})
			tm.expect("› ")
			tm.typ("go" + enter)
			tm.expect("continuing in")
			if v := tm.vtNow(); regionRows(v) > 15 {
				t.Errorf("the region takes %d of 30 rows, more than half:\n%s", regionRows(v), v.text())
			}
			for _, size := range c.sizes {
				at := len(tm.rawText())
				tm.resize(size[0], size[1])
				// Ten redraws at the new size.
				waitFor(t, "redraws after the resize", func() bool { return frames(tm.rawText()[at:]) >= 10 })
			}
			now := tm.vtNow()
			last := c.sizes[len(c.sizes)-1]
			if n := regionRows(now); n > last[1]/2 {
				t.Errorf("the region takes %d of %d rows, more than half:\n%s", n, last[1], now.text())
			}
			for _, row := range now.grid {
				if l := rowText(row); spinnerLine.MatchString(l) && strings.Contains(l, "Bash") {
					t.Errorf("the status line names the last tool during the countdown: %q", l)
				}
			}
			// What the terminal itself moved into the scrollback when the
			// window got shorter (the rows above the new window) is not a
			// frame todosh wrote; every frame after it must stay out.
			pushed := len(spinnerLine.FindAllString(strings.Join(now.scrollback, "\n"), -1))
			tm.expect("stopped:")
			tm.expect("› ")
			tm.quit()
			screen := tm.vtScreen()
			if n := len(spinnerLine.FindAllString(screen, -1)); n > pushed || n > 1 {
				t.Errorf("%d status lines of the live region were left behind (%d pushed by the resize itself):\n%s", n, pushed, screen)
			}
			if n := strings.Count(screen, "Todo 0/12 done"); n > 1+pushed {
				t.Errorf("the list is in the scrollback %d times:\n%s", n, screen)
			}
			for _, want := range []string{"got: go", "continuing 1/3", "continuing 3/3", "without progress"} {
				if !strings.Contains(screen, want) {
					t.Errorf("screen lacks %q:\n%s", want, screen)
				}
			}
		})
	}
}
