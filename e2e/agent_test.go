package e2e_test

import (
	"os"
	"strings"
	"testing"
)

// These tests use fakeshell, the shell with an agent that plans two items
// and then never makes progress, so every prompt is followed by
// continuations and their countdown.

// startFake starts fakeshell with a countdown of delay and waits for its
// prompt.
func startFake(t *testing.T, delay string) (home, *term) {
	t.Helper()
	h := newHome(t)
	tm := h.startProgram(t, fakeshell, []string{"FAKESHELL_DELAY=" + delay})
	tm.expect("todosh › ")
	return h, tm
}

func TestCountdownContinuesThenStops(t *testing.T) {
	_, tm := startFake(t, "100ms")
	tm.typ("start" + enter)
	tm.expect("got: start")
	tm.expect("continued, no progress")
	out := tm.expect("todosh 0/2 › ")
	if n := strings.Count(out, "continued, no progress"); n != 2 {
		// 3 continuations in a row without progress at most; the first
		// was matched above.
		t.Errorf("%d more continuations after the first, want 2:\n%s", n, out)
	}
	tm.quit()
}

func TestTypingDuringCountdownTakesOver(t *testing.T) {
	_, tm := startFake(t, "60s")
	tm.typ("start" + enter)
	tm.expect("got: start")
	tm.expect("type to take over")
	// The key cancels the countdown and starts the next line.
	tm.typ("h")
	tm.expect("todosh 0/2 › h")
	tm.typ("ello" + enter)
	tm.expect("got: hello")
	tm.expect("type to take over")
	// Ctrl-C cancels a countdown too, and leaves nothing typed.
	tm.typ(ctrlC)
	out := tm.expect("todosh 0/2 › ")
	if strings.Contains(out, "continued, no progress") {
		t.Errorf("a cancelled countdown still continued:\n%s", out)
	}
	tm.quit()
}

func TestCtrlCCancelsTurnNotShell(t *testing.T) {
	h, tm := startFake(t, "60s")
	tm.typ("block" + enter)
	tm.expect("blocking until Ctrl-C")
	tm.typ(ctrlC)
	tm.expect("turn cancelled")
	tm.expect("todosh › ")
	// SIGINT outside a turn (here while the prompt is shown; also during
	// a slow command) does not kill the shell either.
	if err := tm.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	tm.typ("/todo add after" + enter)
	tm.expect("todosh 0/1 › ")
	tm.quit()
	h.assertList(t, "fake", "after")
}
