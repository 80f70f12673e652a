//go:build linux || darwin

package repl

import (
	"os"
	"testing"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// TestTTYNoEchoHoldsAcrossModes drives the real terminal's modes on a
// pseudo-terminal: NoEcho holds through readline's raw mode and its way
// back, also when the mode raw mode replaced had the echo on (a shell
// that resumed todosh after readline's Ctrl-Z gives the terminal its own
// mode), and after a resume outside raw mode; its restore puts the first
// mode back, once however often it is called.
func TestTTYNoEchoHoldsAcrossModes(t *testing.T) {
	tty, fd, mode := openPTY(t)
	// echoOn is what a shell does to the terminal when todosh stops.
	echoOn := func() {
		t.Helper()
		m := mode()
		m.Lflag |= unix.ECHO
		if err := termios(fd, setTermios, &m); err != nil {
			t.Fatal(err)
		}
	}
	quiet := func(when string) {
		t.Helper()
		if m := mode(); m.Lflag&unix.ECHO != 0 || m.Lflag&unix.ICANON == 0 {
			t.Errorf("%s: lflag %#x, want no echo in line mode", when, m.Lflag)
		}
	}
	echoOn()
	before := mode()
	term := &ttyTerminal{in: tty, out: tty}
	restore := term.NoEcho()
	quiet("NoEcho")
	if err := term.MakeRaw(); err != nil {
		t.Fatal(err)
	}
	if m := mode(); m.Lflag&(unix.ECHO|unix.ICANON) != 0 {
		t.Errorf("raw: lflag %#x", m.Lflag)
	}
	term.ExitRaw()
	quiet("after raw mode")
	echoOn() // readline's Ctrl-Z, then fg: the shell's mode
	term.MakeRaw()
	term.ExitRaw()
	quiet("after raw mode made over the shell's mode")
	echoOn() // Ctrl-Z during a turn, then fg
	term.resumed()
	quiet("after a resume")
	restore()
	restore()
	if after := mode(); after != before {
		t.Errorf("mode after restore:\n%+v\nwant\n%+v", after, before)
	}
	term.resumed()
	if m := mode(); m.Lflag&unix.ECHO == 0 {
		t.Errorf("a resume after the session turned the echo off: lflag %#x", m.Lflag)
	}
}

// TestTTYStopGivesTheEchoBack: as todosh stops (SIGTSTP: Ctrl-Z during a
// turn, or readline's Ctrl-Z after it left raw mode) the terminal gets
// back the mode NoEcho found, echo on, for a shell such as dash that
// does not set its own; the resume turns the echo off again. A stop while
// readline's raw mode is on leaves the mode to readline.
func TestTTYStopGivesTheEchoBack(t *testing.T) {
	tty, fd, mode := openPTY(t)
	m := mode()
	m.Lflag |= unix.ECHO | unix.ICANON
	if err := termios(fd, setTermios, &m); err != nil {
		t.Fatal(err)
	}
	before := mode()
	term := &ttyTerminal{in: tty, out: tty}
	restore := term.NoEcho()
	defer restore()
	term.stopping()
	if got := mode(); got != before {
		t.Errorf("mode while stopped:\n%+v\nwant the shell's\n%+v", got, before)
	}
	term.resumed()
	if m := mode(); m.Lflag&unix.ECHO != 0 {
		t.Errorf("after the resume: lflag %#x, want no echo", m.Lflag)
	}
	if err := term.MakeRaw(); err != nil {
		t.Fatal(err)
	}
	raw := mode()
	term.stopping()
	if got := mode(); got != raw {
		t.Errorf("a stop in raw mode changed it: lflag %#x, want %#x", got.Lflag, raw.Lflag)
	}
	term.ExitRaw()
}

// openPTY opens a pseudo-terminal for the test (skipped where there is
// none) and returns its terminal end, that end's descriptor and a read
// of its mode.
func openPTY(t *testing.T) (tty *os.File, fd int, mode func() unix.Termios) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() {
		ptmx.Close()
		tty.Close()
	})
	fd = int(tty.Fd())
	return tty, fd, func() unix.Termios {
		t.Helper()
		var m unix.Termios
		if err := termios(fd, getTermios, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
}
