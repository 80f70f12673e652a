package e2e_test

import (
	"os"
	"strings"
	"testing"
)

// Two shells on one session: what one adds shows in the other at once,
// with a notice, without garbling the line being typed; a file edited into
// invalid JSON is reported and nothing is written over it.
func TestLiveSyncBetweenTwoShells(t *testing.T) {
	h := newHome(t)
	tm := h.startTerm(t, "--session", "shared")
	tm.expect("todosh › ")
	tm.run("/todo add mine")

	tm.typ("/todo sh") // a half-typed line must survive the redraw
	if r := h.script(t, t.TempDir(), "", "--session", "shared", "-c", "/todo add theirs"); r.code != 0 {
		t.Fatalf("second shell: exit %d, stderr %q", r.code, r.stderr)
	}
	shown := tm.expect(`+ 2 "theirs"`)
	if !strings.Contains(shown, "changed by another process") {
		t.Errorf("the change arrived without its notice:\n%s", shown)
	}
	if strings.Count(shown, `+ 2 "theirs"`) != 1 {
		t.Errorf("the change was shown more than once:\n%s", shown)
	}
	tm.expect("todosh 0/2 › /todo sh")
	tm.typ("ow" + enter)
	tm.expect("/todo show\n")
	tm.expect("todosh 0/2 › ")

	path := h.store().Path("shared")
	bad := []byte(`{"version": 1, "todos": [`)
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	tm.expect("cannot be used")
	tm.expect("todosh 0/2 (file unusable) › ") // the last good progress stays
	out := tm.run("/todo add more")
	if !strings.Contains(out, "move it aside") || !strings.HasSuffix(out, "todosh 0/2 (file unusable) › ") {
		t.Errorf("/todo add on a corrupt file printed %q, want how to recover and the last good progress", out)
	}
	shown = tm.run("/todo show")
	if !strings.Contains(shown, "The last good list") || !strings.Contains(shown, "2. ○ theirs") {
		t.Errorf("/todo show on a corrupt file printed %q, want the last good list", shown)
	}
	if !strings.Contains(shown, "move it aside") {
		// The error goes to stderr; readline may redraw the prompt before
		// the screen shows it.
		tm.expect("move it aside")
	}
	if data, _ := os.ReadFile(path); string(data) != string(bad) {
		t.Errorf("the corrupt file was overwritten: %q", data)
	}
	tm.quit()
}

// The notice of another process's change names that change only: never
// the shell's own edits before it, and with the right count.
func TestLiveNoticeNamesOnlyTheOtherChange(t *testing.T) {
	h := newHome(t)
	tm := h.startTerm(t, "--session", "notice")
	tm.expect("todosh › ")
	other := func(text string) {
		t.Helper()
		if r := h.script(t, t.TempDir(), "", "--session", "notice", "-c", "/todo add "+text); r.code != 0 {
			t.Fatalf("second shell: exit %d, stderr %q", r.code, r.stderr)
		}
	}
	tm.run("/todo add mine")
	other("theirs")
	notice := lineWith(tm.expect(`theirs"`), "changed by another process")
	if want := `todo list changed by another process: + 2 "theirs"`; notice != want {
		t.Errorf("first notice %q, want %q", notice, want)
	}
	tm.expect("todosh 0/2 › ")
	tm.run("/todo add mine too")
	tm.run("/todo add and mine")
	other("later")
	notice = lineWith(tm.expect(`later"`), "changed by another process")
	if want := `todo list changed by another process: + 5 "later"`; notice != want {
		t.Errorf("second notice %q, want %q", notice, want)
	}
	tm.quit()
}

// lineWith is the last line of screen that contains s, "" for none.
func lineWith(screen, s string) string {
	lines := strings.Split(screen, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], s) {
			return strings.TrimSpace(lines[i])
		}
	}
	return ""
}

// Our own writes are never echoed back as changes from another process.
func TestLiveSyncDoesNotEchoOwnWrites(t *testing.T) {
	h := newHome(t)
	tm := h.startTerm(t, "--session", "own")
	tm.expect("todosh › ")
	for _, line := range []string{"/todo add a", "/todo add b", "/todo done 1", "/todo delete 2"} {
		tm.run(line)
	}
	// A change from outside is the marker that every event before it has
	// been handled.
	if r := h.script(t, t.TempDir(), "", "--session", "own", "-c", "/todo add outside"); r.code != 0 {
		t.Fatalf("second shell: exit %d, stderr %q", r.code, r.stderr)
	}
	tm.expect("outside")
	if n := strings.Count(tm.screen(), "changed by another process"); n != 1 {
		t.Errorf("%d change notices, want exactly 1 (own writes echoed?):\n%s", n, tm.screen())
	}
	tm.quit()
}
