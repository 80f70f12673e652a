package repl

import (
	"io"
	"os"
	"sync"

	"github.com/chzyer/readline"
)

// Terminal is what the interactive shell needs of the terminal it runs in
// (as elvish's TTY): its size, its key input and output, and its modes.
// The shell is built once around one; a test drives it with a fake made
// of pipes, the binary with the real one (newTTY).
type Terminal interface {
	// Size is the window's size in cells; 0 when unknown.
	Size() (cols, rows int)
	// OnResize calls f after every change of the window's size.
	OnResize(f func())
	// Input is the key input readline reads; closing it ends the read.
	Input() io.ReadCloser
	// Output is the screen: the line editor, the live region and every
	// line printed go there.
	Output() io.Writer
	// MakeRaw and ExitRaw switch the raw mode of line editing on and off;
	// MakeRaw while raw does nothing, and the first ExitRaw ends it.
	MakeRaw() error
	ExitRaw() error
	// PollMode is the raw mode of the countdown: ReadKey then returns the
	// keys pressed, or nothing after keyPoll. restore ends it.
	PollMode() (restore func(), err error)
	ReadKey(buf []byte) (int, error)
	// OnStop calls stop as todosh is suspended (Ctrl-Z) and cont when it
	// is resumed in the foreground, so the screen can be handed over
	// clean and drawn again.
	OnStop(stop, cont func())
	// Suspend stops todosh as Ctrl-Z does, for a raw mode in which the
	// key is read as a key (the countdown), and returns once it is
	// resumed; where there is no job control it returns at once.
	Suspend()
	// NoEcho stops the terminal's own echo of keys for the whole
	// interactive session: keys typed while no line is read (a command, a
	// turn, the moments between) stay queued, unshown, for the countdown
	// or the next prompt, which shows them once. restore puts back the
	// mode the terminal had, also when todosh ends on a signal.
	NoEcho() (restore func())
}

// IsTerminal reports whether f is a terminal (an *os.File on one).
func IsTerminal(f any) bool {
	file, ok := f.(*os.File)
	return ok && readline.IsTerminal(int(file.Fd()))
}

// ttyTerminal is the real terminal: stdin and stdout.
type ttyTerminal struct {
	in, out *os.File

	// modeMu guards the mode: raw is readline's raw mode while on (the
	// mode it replaced), quiet says NoEcho is in force.
	modeMu sync.Mutex
	raw    *readline.State
	quiet  bool
	// polling is set while the countdown's raw mode is on (PollMode).
	polling bool
	// before puts back the mode NoEcho found, for a stop (onStop).
	before func()
	// onStop and onCont are OnStop's: called as todosh stops and after
	// it resumed in the foreground.
	onStop, onCont []func()

	mu       sync.Mutex
	onResize []func()
}

// newTTY returns the terminal when stdin and stdout are both one, which
// is when the shell is interactive.
func newTTY(stdin io.Reader, stdout io.Writer) (Terminal, bool) {
	in, okIn := stdin.(*os.File)
	out, okOut := stdout.(*os.File)
	if !okIn || !okOut || !readline.IsTerminal(int(in.Fd())) || !readline.IsTerminal(int(out.Fd())) {
		return nil, false
	}
	// A console that cannot read escape sequences (Windows before 10)
	// gets the shell as in a script rather than a screen of escapes.
	if !enableEscapes(out) {
		return nil, false
	}
	return &ttyTerminal{in: in, out: out}, true
}

func (t *ttyTerminal) Size() (int, int) {
	w, h, err := readline.GetSize(int(t.out.Fd()))
	if err != nil {
		return 0, 0
	}
	return w, h
}

// OnResize adds f to what runs on SIGWINCH. readline keeps one callback
// for the whole process, so the terminal registers its own once and calls
// every f from it: readline's line editor and the live region both learn
// of a resize.
func (t *ttyTerminal) OnResize(f func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.onResize) == 0 {
		readline.DefaultOnWidthChanged(t.resized)
	}
	t.onResize = append(t.onResize, f)
}

func (t *ttyTerminal) resized() { t.calls(&t.onResize) }

// Input reads stdin only when asked, so the countdown can read the same
// terminal between two lines.
func (t *ttyTerminal) Input() io.ReadCloser { return readline.NewCancelableStdin(t.in) }

func (t *ttyTerminal) Output() io.Writer { return t.out }

func (t *ttyTerminal) MakeRaw() error {
	t.modeMu.Lock()
	defer t.modeMu.Unlock()
	if t.raw != nil {
		// Already raw (the editor's switch before readline's): keep the
		// mode the first switch saved, so ExitRaw goes back to it.
		return nil
	}
	st, err := readline.MakeRaw(int(t.in.Fd()))
	if err == nil {
		t.raw = st
	}
	return err
}

// ExitRaw puts back the mode MakeRaw replaced, without the echo while
// NoEcho is in force: after a suspend (readline's Ctrl-Z) MakeRaw replaced
// the mode of the shell that resumed todosh, echo on.
func (t *ttyTerminal) ExitRaw() error {
	t.modeMu.Lock()
	defer t.modeMu.Unlock()
	if t.raw == nil {
		return nil
	}
	st := t.raw
	t.raw = nil
	err := readline.Restore(int(t.in.Fd()), st)
	if t.quiet {
		noEchoMode(int(t.in.Fd()))
	}
	return err
}

// PollMode is taken under the mode's lock and marked, so a resume
// (SIGCONT, on its own goroutine) does not write the line mode it read
// over the countdown's raw mode.
func (t *ttyTerminal) PollMode() (func(), error) {
	t.modeMu.Lock()
	defer t.modeMu.Unlock()
	restore, err := pollingRawMode(int(t.in.Fd()))
	if err != nil {
		return nil, err
	}
	t.polling = true
	return func() {
		t.modeMu.Lock()
		defer t.modeMu.Unlock()
		t.polling = false
		restore()
	}, nil
}

func (t *ttyTerminal) ReadKey(buf []byte) (int, error) { return readKey(t.in, buf) }

// NoEcho also turns the echo off again whenever todosh is resumed after a
// suspend (Ctrl-Z during a turn, then fg): the shell that resumed it gave
// the terminal its own mode, echo on.
func (t *ttyTerminal) NoEcho() func() {
	fd := int(t.in.Fd())
	t.modeMu.Lock()
	restore := noEchoMode(fd)
	t.quiet, t.before = true, restore
	t.modeMu.Unlock()
	stop := onContinue(fd, t.resumed)
	stopSuspend := onStop(t.stopping)
	var once sync.Once
	return func() {
		once.Do(func() {
			stopSuspend()
			stop()
			t.modeMu.Lock()
			defer t.modeMu.Unlock()
			t.quiet = false
			restore()
		})
	}
}

func (t *ttyTerminal) OnStop(stop, cont func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.onStop = append(t.onStop, stop)
	t.onCont = append(t.onCont, cont)
}

func (t *ttyTerminal) Suspend() {
	stopSelf(t.stopping)
	t.resumed()
}

// calls runs fs, a copy of one of the terminal's lists of callbacks taken
// under its lock.
func (t *ttyTerminal) calls(list *[]func()) {
	t.mu.Lock()
	fs := append([]func(){}, (*list)...)
	t.mu.Unlock()
	for _, f := range fs {
		f()
	}
}

// stopping gives the terminal back its mode from before NoEcho, echo on,
// as todosh stops (onStop): the shell the person then types at may not
// set its own. In readline's raw mode (a stop signal sent from outside
// while a line is read; readline's own Ctrl-Z leaves raw mode first) the
// mode is left to readline.
func (t *ttyTerminal) stopping() {
	t.calls(&t.onStop)
	t.modeMu.Lock()
	defer t.modeMu.Unlock()
	if t.quiet && t.raw == nil && t.before != nil {
		t.before()
	}
}

// resumed turns the echo off again after a suspend, unless readline's raw
// mode is on: readline made it after its own suspend, and ExitRaw gives
// back the mode without echo.
func (t *ttyTerminal) resumed() {
	t.modeMu.Lock()
	if t.quiet && t.raw == nil && !t.polling {
		noEchoMode(int(t.in.Fd()))
	}
	t.modeMu.Unlock()
	t.calls(&t.onCont)
}
