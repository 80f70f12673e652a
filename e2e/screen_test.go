package e2e_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/todosh/todosh/textwidth"
)

var updateScreens = flag.Bool("screens.update", false, "rewrite testdata/screens/*.golden")

// goldenScreen compares a screen with testdata/screens/name.golden.
func goldenScreen(t *testing.T, name, got string) { goldenOutput(t, "screens", name, got) }

// goldenOutput compares got with testdata/dir/name.golden, or rewrites
// the file with -screens.update.
func goldenOutput(t *testing.T, dir, name, got string) {
	t.Helper()
	path := filepath.Join("..", "testdata", dir, name+".golden")
	if *updateScreens {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./e2e -run %s -screens.update)", err, t.Name())
	}
	if string(want) != got {
		t.Errorf("output differs from %s (rerun with -screens.update and review):\n--- got\n%s--- want\n%s", path, got, want)
	}
}

// raw is everything the terminal received.
func (tm *term) rawText() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return string(tm.raw)
}

// widthList fills session "w" with long, CJK and emoji items.
func widthList(t *testing.T, h home) {
	t.Helper()
	r := h.script(t, h.dir, "", "--session", "w",
		"-c", "/todo add Implement the parser for the configuration file format",
		"-c", "/todo add 日本語のドキュメントを書く",
		"-c", "/todo add Ship it 🚀 to everyone who asked",
		"-c", "/todo add 1.last quoted fields",
		"-c", "/todo add 1.last CRLF line endings",
		"-c", "/todo done 1.1",
		"-c", "/todo add 3.last 👍🏽 review",
		"-c", "/todo add 2.last 確認する")
	if r.code != 0 {
		t.Fatalf("filling the list: exit %d, %s", r.code, r.stderr)
	}
}

// At 20, 40 and 120 columns /todo show and /help fit the width: texts
// wrap at words under the item's text, CJK and emoji align by display
// width (golden screens of the screen model).
func TestScreenWidths(t *testing.T) {
	for _, cols := range []int{20, 40, 120} {
		t.Run(fmt.Sprint(cols), func(t *testing.T) {
			h := newHome(t)
			widthList(t, h)
			tm := h.startSized(t, cols, 30, binary, []string{"NO_COLOR=1"}, "--session", "w")
			tm.expect("› ")
			tm.typ("/todo show" + enter)
			tm.expect("review")
			tm.expect("› ")
			tm.typ("/help" + enter)
			tm.expect("e.g. /exit")
			tm.expect("› ")
			tm.quit()
			screen := tm.vtScreen()
			goldenScreen(t, fmt.Sprintf("width_%d", cols), screen)
			if cols == 120 {
				// Notes start in one column whatever the text's script.
				var at []int
				for _, l := range strings.Split(screen, "\n") {
					if i := strings.Index(l, "(in progress"); i >= 0 || strings.Contains(l, "(0/1)") {
						if i < 0 {
							i = strings.Index(l, "(0/1)")
						}
						at = append(at, textwidth.Width(l[:i]))
					}
				}
				if len(at) != 3 || at[1] != 40 || at[2] != 40 {
					t.Errorf("notes at columns %v, want 40:\n%s", at, screen)
				}
			}
		})
	}
}

// spinnerLine matches the live region's status line.
var spinnerLine = regexp.MustCompile(`(?m)^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] \d`)

// The live region redraws in place: after a prompt with three
// continuations the scrollback holds the final list once and no status
// line, at 40 and at 20 columns (where the countdown must not leave a
// line per second either).
func TestLiveRegionInPlace(t *testing.T) {
	for _, cols := range []int{20, 40} {
		t.Run(fmt.Sprint(cols), func(t *testing.T) {
			h := newHome(t)
			tm := h.startSized(t, cols, 24, fakeshell, []string{"FAKESHELL_DELAY=1500ms", "NO_COLOR=1"})
			tm.expect("› ")
			tm.typ("go" + enter)
			// One wait per countdown: the three of them in one took
			// 4.5s of expect's bound.
			tm.expect("continuing 1/3")
			tm.expect("continuing 2/3")
			tm.expect("continuing 3/3")
			// At 20 columns the decision wraps at a word, its rest
			// indented; at 40 it fits.
			tm.expect("stopped: 3 attempts")
			tm.expect("without progress")
			tm.expect("› ")
			tm.quit()
			screen := tm.vtScreen()
			if n := strings.Count(screen, "Todo 0/2 done"); n != 1 {
				t.Errorf("the list is in the scrollback %d times, want once:\n%s", n, screen)
			}
			if spinnerLine.MatchString(screen) || strings.Contains(screen, "continuing in") {
				t.Errorf("a status or countdown line was left behind:\n%s", screen)
			}
			decision := "stopped: 3 attempts without progress"
			if cols == 20 {
				decision = "stopped: 3 attempts\n  without progress"
			}
			for _, want := range []string{"got: go", "continuing 1/3", "continuing 3/3", decision} {
				if !strings.Contains(screen, want) {
					t.Errorf("screen lacks %q:\n%s", want, screen)
				}
			}
			// The countdown was shown in the region (seen in the raw output).
			if !strings.Contains(tm.rawText(), "continuing in 1s") {
				t.Errorf("the countdown was never shown")
			}
		})
	}
}

// Resizing during a turn redraws the region at the new width; what stays
// is the agent's text and the end of the turn, not the region.
// The first prompt only puts a list in the region, so its continuations
// need no countdown: at the default 3s each, the three of them took 9s of
// expect's 10s bound, and under load the wait for "stopped:" ran out.
func TestLiveRegionResize(t *testing.T) {
	h := newHome(t)
	tm := h.startSized(t, 60, 24, fakeshell, []string{"FAKESHELL_DELAY=0s", "NO_COLOR=1"})
	tm.expect("› ")
	tm.typ("go" + enter)
	tm.expect("stopped:")
	tm.expect("› ")
	tm.typ("block" + enter)
	tm.expect("blocking until Ctrl-C")
	tm.expect("working")
	tm.resize(30, 20)
	at := len(tm.rawText())
	waitFor(t, "a redraw after the resize", func() bool { return strings.Contains(tm.rawText()[at:], "working") })
	tm.typ(ctrlC)
	tm.expect("turn cancelled")
	tm.expect("› ")
	tm.quit()
	screen := tm.vtScreen()
	if spinnerLine.MatchString(screen) {
		t.Errorf("a status line was left behind after the resize:\n%s", screen)
	}
	for _, l := range strings.Split(screen, "\n") {
		if textwidth.Width(l) > 60 {
			t.Errorf("line wider than the window: %q", l)
		}
	}
	if !strings.Contains(screen, "blocking until Ctrl-C") || !strings.Contains(screen, "turn cancelled") {
		t.Errorf("the turn's text is gone:\n%s", screen)
	}
}

// A bracketed paste of several lines is one prompt, shown with ␤ marks
// and editable (Home and End of tmux) before Enter; the /todo clear line
// in it is text for the agent, not a command.
func TestPasteIsOnePrompt(t *testing.T) {
	h := newHome(t)
	tm := h.startSized(t, 80, 24, fakeshell, []string{"FAKESHELL_DELAY=0s", "NO_COLOR=1"})
	tm.expect("› ")
	if !strings.Contains(tm.rawText(), "\x1b[?2004h") {
		t.Error("bracketed paste was not switched on")
	}
	tm.typ("\x1b[200~first line\r\n/todo clear\nthird line\x1b[201~")
	tm.expect("first line␤/todo clear␤third line")
	tm.typ("\x1b[1~> \x1b[4~ end" + enter)
	tm.expect("got: > first line")
	tm.expect("stopped:")
	tm.expect("› ")
	tm.quit()
	screen := tm.vtScreen()
	if !strings.Contains(screen, "got: > first line\n/todo clear\nthird line end") {
		t.Errorf("the agent did not get the pasted block as one prompt:\n%s", screen)
	}
	if strings.Contains(screen, "Cleared") {
		t.Errorf("the pasted /todo clear ran as a command:\n%s", screen)
	}
	h.assertList(t, "fake", "plan the work", "do the work")
}

// A 10,000-character paste arrives as one prompt, whole.
func TestLongPaste(t *testing.T) {
	h := newHome(t)
	tm := h.startSized(t, 80, 24, fakeshell, []string{"FAKESHELL_DELAY=0s", "NO_COLOR=1"})
	tm.expect("› ")
	long := strings.Repeat("x", 10000)
	tm.typ("\x1b[200~" + long + "\x1b[201~" + enter)
	tm.expect("stopped:")
	tm.expect("› ")
	tm.quit()
	if !strings.Contains(tm.rawText(), "got: "+long+"\r\n") {
		t.Errorf("the agent did not get the 10,000 characters as one prompt")
	}
}

// Colour in a terminal; none with NO_COLOR, TERM=dumb or --color=never.
func TestColour(t *testing.T) {
	done := "\x1b[32m✓\x1b[0m"
	for _, c := range []struct {
		name  string
		env   []string
		args  []string
		color bool
	}{
		{"terminal", nil, nil, true},
		{"NO_COLOR", []string{"NO_COLOR=1"}, nil, false},
		{"TERM=dumb", []string{"TERM=dumb"}, nil, false},
		{"--color=never", nil, []string{"--color=never"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHome(t)
			tm := h.startSized(t, 80, 24, binary, c.env, append([]string{"--session", "c"}, c.args...)...)
			tm.expect("› ")
			tm.typ("/todo add one" + enter)
			tm.expect("0/1 done")
			tm.typ("/todo done 1" + enter)
			tm.expect("1/1 done")
			tm.typ("/todo delete 7" + enter)
			tm.expect("out of range")
			tm.expect("› ")
			tm.quit()
			raw := tm.rawText()
			if got := strings.Contains(raw, done); got != c.color {
				t.Errorf("coloured mark shown: %v, want %v", got, c.color)
			}
			if got := strings.Contains(raw, "\x1b[1;31m"); got != c.color {
				t.Errorf("coloured error shown: %v, want %v", got, c.color)
			}
		})
	}
	// --color=always colours a script too.
	h := newHome(t)
	r := h.script(t, h.dir, "", "--color=always", "-c", "/todo add one", "-c", "/todo done 1")
	if !strings.Contains(r.stdout, done) {
		t.Errorf("--color=always script output has no colour: %q", r.stdout)
	}
	if r := h.script(t, h.dir, "", "-c", "/todo add one", "-c", "/todo done 1"); strings.Contains(r.stdout, "\x1b[") {
		t.Errorf("a script without --color has colour: %q", r.stdout)
	}
}

// --resume shows the session's id and its list, in a terminal and in a
// script; /todo list shows every session's id.
func TestResumeShowsIDAndList(t *testing.T) {
	h := newHome(t)
	if r := h.script(t, h.dir, "", "--session", "work-1", "-c", "/todo add write the parser"); r.code != 0 {
		t.Fatalf("prepare: %+v", r)
	}
	tm := h.startTerm(t, "--resume")
	tm.expect("todosh session work-1")
	tm.expect(" 1. ○ write the parser")
	tm.expect("todosh 0/1 › ")
	tm.typ("/todo list" + enter)
	tm.expect("1* work-1")
	tm.expect("› ")
	tm.quit()
	r := h.script(t, h.dir, "", "--resume", "-c", "/todo done 1")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "resumed session work-1\nTodo 0/1 done\n 1. ○ write the parser\n") {
		t.Errorf("script --resume: exit %d, stdout %q", r.code, r.stdout)
	}
}
