package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/todosh/todosh/textwidth"

	"github.com/todosh/todosh/internal/testenv"
)

// The words of a session in a window resized mid-turn: a key in the
// countdown says "you took over" (not "continuation cancelled" after
// "continuing 1/3"); /todo history fits the narrower window and names the
// agent once; /todo list calls a finished list's item done, not next; and
// keys typed while a command waits are shown once, at the next prompt, not
// also echoed by the terminal.
func TestTurnWordsAfterResize(t *testing.T) {
	h := newHome(t)
	tm := h.startSized(t, 100, 30, fakeshell, []string{"FAKESHELL_DELAY=60s", "NO_COLOR=1"})
	tm.expect("› ")
	tm.typ("go" + enter)
	tm.expect("continuing in")
	tm.resize(48, 20)
	at := len(tm.rawText())
	waitFor(t, "a redraw after the resize", func() bool { return frames(tm.rawText()[at:]) >= 3 })
	tm.typ("x")
	tm.expect("you took over: continuation 1/3 not sent")
	tm.expect("› x")
	tm.typ("\x7f") // the x starts the next line; take it back
	tm.typ("/todo history" + enter)
	tm.expect("wrote a list of 2 items")
	tm.expect("› ")
	tm.typ("/todo done 1" + enter)
	tm.expect("1/2 done")
	tm.typ("/todo done 2" + enter)
	tm.expect("2/2 done")
	tm.expect("› ")
	tm.typ("/todo list" + enter)
	tm.expect("all done: plan the")
	tm.expect("› ")

	// Hold the session's lock, so the next command waits for it while
	// more keys arrive.
	lock, err := os.OpenFile(filepath.Join(h.store().Dir, ".locks", "fake.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := testenv.Lock(lock); err != nil {
		t.Fatal(err)
	}
	tm.typ("/todo add typed ahead" + enter)
	tm.expect("waiting for")
	tm.typ("/todo show" + enter)
	testenv.Unlock(lock)
	tm.expect("typed ahead")
	tm.expect("› /todo show")
	tm.expect("› ")
	tm.quit()

	screen := tm.vtScreen()
	if strings.Contains(screen, "continuation cancelled") {
		t.Errorf("the take-over is called a cancel:\n%s", screen)
	}
	if strings.Contains(screen, "agent  agent") || strings.Contains(screen, "agent wrote") {
		t.Errorf("the history names the agent twice:\n%s", screen)
	}
	if n := strings.Count(screen, "/todo show"); n != 1 {
		t.Errorf("the line typed ahead is shown %d times, want once:\n%s", n, screen)
	}
	// Everything after the resize fits 48 columns, the history's rows
	// whole: each ends its quote.
	after := screen[strings.Index(screen, "you took over"):]
	for _, l := range strings.Split(after, "\n") {
		if w := textwidth.Width(l); w > 48 {
			t.Errorf("a line is %d wide in a window of 48: %q", w, l)
		}
	}
	if !strings.Contains(after, `"plan the work"`) || !strings.Contains(strings.Join(strings.Fields(after), " "), "Changes to this session's list") {
		t.Errorf("the history lost words:\n%s", after)
	}
}
