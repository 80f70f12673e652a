package repl

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/todostore"
)

// fakeTerminal is a Terminal made of a queue for keys and a buffer for
// the screen, with a fixed size: the interactive shell runs on it without
// a pseudo-terminal. Its modes behave as a terminal's: it starts echoing
// keys as they are typed (cooked), and MakeRaw, NoEcho and PollMode each
// stop the echo and put back what they found.
type fakeTerminal struct {
	cols, rows int

	mu   sync.Mutex
	cond *sync.Cond // signalled when keys arrive or the input closes
	out  bytes.Buffer
	// keys are typed and not yet read; closed once readline closed them.
	keys   []byte
	closed bool
	// echo is the terminal's own echo of keys typed; raw is the mode
	// MakeRaw and ExitRaw switch, rawEcho the echo MakeRaw found. cooked
	// holds every prompt drawn while raw was off, when a terminal reads
	// keys in its own line mode.
	echo    bool
	raw     bool
	rawEcho bool
	cooked  []string
	// echoed logs every time the echo came on and every write made while
	// it was on: when keys typed then were shown twice.
	echoed []string
	// hold, when set, stops the shell at its first write that contains it
	// until release is closed; held is closed once it is stopped there.
	hold          string
	held, release chan struct{}

	exited chan int // runFake: RunTerminal's status when it returns
}

func newFakeTerminal(cols, rows int) *fakeTerminal {
	f := &fakeTerminal{cols: cols, rows: rows, echo: true}
	f.cond = sync.NewCond(&f.mu)
	return f
}

func (f *fakeTerminal) Size() (int, int)      { return f.cols, f.rows }
func (f *fakeTerminal) OnResize(func())       {}
func (f *fakeTerminal) OnStop(func(), func()) {}
func (f *fakeTerminal) Suspend()              {}
func (f *fakeTerminal) Input() io.ReadCloser  { return fakeKeys{f} }
func (f *fakeTerminal) Output() io.Writer     { return f }
func (f *fakeTerminal) MakeRaw() error        { return f.setRaw(true) }
func (f *fakeTerminal) ExitRaw() error        { return f.setRaw(false) }
func (f *fakeTerminal) PollMode() (func(), error) {
	return f.NoEcho(), nil
}

// NoEcho stops the echo; restore puts back the echo it found.
func (f *fakeTerminal) NoEcho() func() {
	f.mu.Lock()
	defer f.mu.Unlock()
	was := f.echo
	f.setEcho(false)
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.setEcho(was)
	}
}

// ReadKey is the countdown's: no key is ever pressed.
func (f *fakeTerminal) ReadKey([]byte) (int, error) {
	time.Sleep(keyPoll)
	return 0, nil
}

func (f *fakeTerminal) setRaw(on bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case on && !f.raw:
		f.rawEcho = f.echo
		f.setEcho(false)
	case !on && f.raw:
		f.setEcho(f.rawEcho)
	}
	f.raw = on
	return nil
}

// setEcho switches the echo; the caller holds mu.
func (f *fakeTerminal) setEcho(on bool) {
	if on && !f.echo {
		f.echoed = append(f.echoed, "echo on")
	}
	f.echo = on
}

func (f *fakeTerminal) Write(p []byte) (int, error) {
	f.mu.Lock()
	if f.hold != "" && strings.Contains(string(p), f.hold) {
		f.hold = ""
		close(f.held)
		f.mu.Unlock()
		<-f.release
		f.mu.Lock()
	}
	defer f.mu.Unlock()
	if !f.raw && strings.Contains(string(p), "› ") {
		f.cooked = append(f.cooked, string(p))
	}
	if f.echo {
		f.echoed = append(f.echoed, "wrote "+strconv.Quote(string(p)))
	}
	return f.out.Write(p)
}

// holdAt makes the shell stop at its first write that contains text;
// wait for held, then close release to let it go on.
func (f *fakeTerminal) holdAt(text string) (held, release chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hold, f.held, f.release = text, make(chan struct{}), make(chan struct{})
	return f.held, f.release
}

func (f *fakeTerminal) screen() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.out.String()
}

// send types keys: queued for the shell to read, and shown at once
// while the terminal echoes, as a terminal does.
func (f *fakeTerminal) send(keys string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.echo {
		f.out.WriteString(keys)
	}
	f.keys = append(f.keys, keys...)
	f.cond.Broadcast()
}

// typ sends keys; wait waits until the screen shows s.
func (f *fakeTerminal) typ(t *testing.T, keys string) {
	t.Helper()
	f.send(keys)
}

func (f *fakeTerminal) wait(t *testing.T, s string) {
	t.Helper()
	end := time.Now().Add(10 * time.Second)
	for !strings.Contains(f.screen(), s) {
		if time.Now().After(end) {
			t.Fatalf("waited for %q; screen:\n%q", s, f.screen())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// fakeKeys is the fake terminal's key input: a read waits for keys.
type fakeKeys struct{ f *fakeTerminal }

func (k fakeKeys) Read(p []byte) (int, error) {
	f := k.f
	f.mu.Lock()
	defer f.mu.Unlock()
	for len(f.keys) == 0 && !f.closed {
		f.cond.Wait()
	}
	if len(f.keys) == 0 {
		return 0, io.EOF
	}
	n := copy(p, f.keys)
	f.keys = f.keys[n:]
	return n, nil
}

func (k fakeKeys) Close() error {
	k.f.mu.Lock()
	defer k.f.mu.Unlock()
	k.f.closed = true
	k.f.cond.Broadcast()
	return nil
}

// runFake starts the interactive shell on a fake terminal with the agent
// steps given and waits for its prompt; stop types Ctrl-D and returns the
// exit status.
func runFake(t *testing.T, steps ...turnStep) (*fakeTerminal, *turnFake, func() int) {
	t.Helper()
	ft, fake, stop := startFake(t, nil, steps...)
	ft.wait(t, "todosh › ")
	return ft, fake, stop
}

// startFake is runFake without the wait, with before run on the shell's
// configuration and terminal before the shell starts.
func startFake(t *testing.T, before func(*Config, *fakeTerminal), steps ...turnStep) (*fakeTerminal, *turnFake, func() int) {
	t.Helper()
	ft := newFakeTerminal(60, 24)
	cfg := NewConfig()
	cfg.Root = t.TempDir()
	cfg.SessionID = "fake"
	cfg.Cwd = t.TempDir()
	cfg.ContinueDelay = 0
	cfg.Color = ColorNever
	fake := &turnFake{steps: steps}
	cfg.NewAgent = func(s agent.Session) (agent.Agent, error) {
		fake.sess = s
		return fake, nil
	}
	if before != nil {
		before(&cfg, ft)
	}
	ft.exited = make(chan int, 1)
	go func() { ft.exited <- RunTerminal(cfg, ft, io.Discard) }()
	return ft, fake, func() int {
		ft.typ(t, "\x04")
		select {
		case code := <-ft.exited:
			return code
		case <-time.After(10 * time.Second):
			t.Fatal("the shell did not exit on Ctrl-D")
			return -1
		}
	}
}

// A bracketed paste of several lines is one prompt, edited before Enter
// with Home and End; the /todo line inside it is not run.
func TestFakeTerminalPasteIsOnePrompt(t *testing.T) {
	ft, fake, stop := runFake(t, turnSay("ok"))
	ft.typ(t, "\x1b[200~error: it broke\r\n/todo clear\nat line 3\x1b[201~")
	ft.wait(t, "error: it broke␤/todo clear␤at line 3")
	ft.typ(t, "\x1b[1~Why? \x1b[4~ Fix it.\r")
	ft.wait(t, "ok")
	if code := stop(); code != ExitOK {
		t.Errorf("exit %d", code)
	}
	if len(fake.turns) != 1 {
		t.Fatalf("%d prompts sent, want 1", len(fake.turns))
	}
	if want := "Why? error: it broke\n/todo clear\nat line 3 Fix it."; fake.turns[0].Prompt != want {
		t.Errorf("prompt %q, want %q", fake.turns[0].Prompt, want)
	}
}

// Home and End of tmux and rxvt move the cursor: "/" typed after Home
// makes the line a command.
func TestFakeTerminalHomeEnd(t *testing.T) {
	for _, keys := range [][2]string{{"\x1b[1~", "\x1b[4~"}, {"\x1b[7~", "\x1b[8~"}, {"\x1b[H", "\x1b[F"}, {"\x1bOH", "\x1bOF"}} {
		ft, fake, stop := runFake(t)
		ft.typ(t, "todo add middle"+keys[0]+"/"+keys[1]+" end\r")
		ft.wait(t, `+ 1 "middle end"`)
		stop()
		if len(fake.turns) != 0 {
			t.Errorf("keys %q: the line went to the agent", keys)
		}
	}
}

// Alt-Enter types a line break: the prompt has two lines.
func TestFakeTerminalAltEnter(t *testing.T) {
	ft, fake, stop := runFake(t, turnSay("ok"))
	ft.typ(t, "first\x1b\rsecond\r")
	ft.wait(t, "ok")
	stop()
	if len(fake.turns) != 1 || fake.turns[0].Prompt != "first\nsecond" {
		t.Errorf("turns %+v, want one prompt of two lines", fake.turns)
	}
}

// During a turn the live region shows the status (the agent's status
// text, the tool) and the list, erased before every line printed above
// it; at the end the region goes and the final list is printed once.
func TestFakeTerminalLiveRegion(t *testing.T) {
	release := make(chan struct{})
	step := func(_ context.Context, s agent.Session, emit func(agent.Event)) (agent.Result, error) {
		sess, err := s.Update(func(sess *todostore.Session) error {
			sess.Todos = renderTodos("plan", "build")
			return nil
		})
		if err != nil {
			return agent.Result{}, err
		}
		emit(agent.Event{Kind: agent.EventToolCall, Text: "todo_write 2 items"})
		emit(agent.Event{Kind: agent.EventTodos, Todos: sess.Todos})
		emit(agent.Event{Kind: agent.EventStatus, Text: "retrying the API (3/10)"})
		<-release
		sess, err = s.Update(func(sess *todostore.Session) error {
			for i := range sess.Todos {
				sess.Todos[i].Status = todolist.Completed
			}
			return nil
		})
		if err != nil {
			return agent.Result{}, err
		}
		emit(agent.Event{Kind: agent.EventTodos, Todos: sess.Todos})
		emit(agent.Event{Kind: agent.EventText, Text: "All done.\n"})
		return agent.Result{FinalText: "All done."}, nil
	}
	ft, _, stop := runFake(t, step)
	ft.typ(t, "go\r")
	ft.wait(t, "retrying the API (3/10)")
	ft.wait(t, " 2. ○ build")
	close(release)
	ft.wait(t, "all done\n")
	ft.wait(t, "Todo 2/2 done\n 1. ✓ plan\n 2. ✓ build\n")
	stop()
	out := ft.screen()
	final := strings.LastIndex(out, "Todo 2/2 done\n")
	erased := "\r\x1b[3A" + regionErase(24)
	if erase := strings.LastIndex(out[:final], erased); erase < 0 || erase+len(erased) != final {
		t.Errorf("the region was not erased before the final list:\n%q", out)
	}
	if n := strings.Count(out[:final], "  ⏺ todo_write 2 items\n"); n != 1 {
		t.Errorf("tool line printed %d times above the region, want once:\n%q", n, out)
	}
	if strings.Contains(out[final:], "retrying") {
		t.Errorf("the status line was left after the turn:\n%q", out[final:])
	}
}

// A NUL at the prompt ends the shell (readline takes it for the end of
// the input), and the shell exits although readline's key goroutine then
// reads on: a Ctrl-D typed during a turn, while the terminal is in its
// cooked mode, reaches the next prompt as a NUL, and readline's Close
// used to wait for that read forever.
func TestFakeTerminalExitsAfterNUL(t *testing.T) {
	ft, _, _ := runFake(t)
	ft.typ(t, "\x00")
	select {
	case code := <-ft.exited:
		if code != ExitOK {
			t.Errorf("exit %d, want %d", code, ExitOK)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the shell did not exit after a NUL at the prompt")
	}
}

// Lines printed after Readline has returned the line go straight to the
// terminal, never with the prompt drawn again after them, however late
// readline's key goroutine stops reading: here it is made to read again,
// as it still does for a moment after Enter on a loaded machine, when a
// turn's live region drew its first status line.
func TestEditorLinesAfterReadlineDrawNoPrompt(t *testing.T) {
	ft := newFakeTerminal(60, 24)
	ed, err := newEditor(ft, "", func(string) []string { return nil })
	if err != nil {
		t.Fatal(err)
	}
	defer ed.Close()
	ed.SetPrompt("todosh › ")
	ft.typ(t, "hi\r")
	if line, err := ed.Readline(); err != nil || line != "hi" {
		t.Fatalf("Readline = %q, %v", line, err)
	}
	ed.Terminal.KickRead()
	end := time.Now().Add(10 * time.Second)
	for !ed.Terminal.IsReading() {
		if time.Now().After(end) {
			t.Fatal("readline's key goroutine did not start reading")
		}
		time.Sleep(time.Millisecond)
	}
	before := len(ft.screen())
	io.WriteString(ed.Stdout(), "⠋ 0s · working\n")
	io.WriteString(ed.Stderr(), "acp: failed\n")
	if got := ft.screen()[before:]; got != "⠋ 0s · working\nacp: failed\n" {
		t.Errorf("lines written after Readline showed as %q", got)
	}
}

// The prompt is drawn only in raw mode: drawn before it (as readline's
// ReadlineWithDefault does), keys typed as soon as it shows were echoed by
// the terminal as well as by readline, so the line showed twice and a
// pasted CR became an empty line in the paste.
func TestFakeTerminalPromptDrawnInRawMode(t *testing.T) {
	ft, _, stop := runFake(t)
	ft.typ(t, "/todo add one\r")
	ft.wait(t, "todosh 0/1 › ")
	stop()
	ft.mu.Lock()
	defer ft.mu.Unlock()
	if len(ft.cooked) > 0 {
		t.Errorf("prompts drawn outside raw mode: %q", ft.cooked)
	}
}

// The terminal echoes no key from the shell's start to its end: its echo
// comes on once, as the shell returns, and nothing is written with it on
// before. Before, it came on again after every line (between the line's work
// and the next prompt, and from readline's return to the work), and the
// banner went out with it on: keys typed then showed twice.
func TestFakeTerminalNeverEchoes(t *testing.T) {
	ft, _, stop := runFake(t, turnSay("ok"))
	ft.typ(t, "/todo add one\r")
	ft.wait(t, "todosh 0/1 › ")
	ft.typ(t, "go on\r")
	ft.wait(t, "ok")
	ft.wait(t, "todosh 0/1 › ")
	ft.typ(t, "\x03") // Ctrl-C on an empty line: the hint
	ft.wait(t, interruptHint)
	ft.typ(t, "/todo show\r")
	ft.wait(t, "○ one")
	if code := stop(); code != ExitOK {
		t.Errorf("exit %d", code)
	}
	ft.mu.Lock()
	defer ft.mu.Unlock()
	// The echo comes on once, first in the log: nothing was written with
	// it on before. (readline's key goroutine may still erase its line
	// after the shell has returned.)
	if len(ft.echoed) == 0 || ft.echoed[0] != "echo on" || slices.Index(ft.echoed[1:], "echo on") >= 0 || !ft.echo {
		t.Errorf("echo on while the shell ran, or not back at its end (echo %v):\n%s", ft.echo, strings.Join(ft.echoed, "\n"))
	}
}

// Keys typed while the shell is between two prompts (starting, printing
// the Ctrl-C hint, opening the session chosen from /todo list) show once,
// at the next prompt, and run with Enter. The shell is stopped at a line
// it writes in that moment, the keys typed, and it is let go.
func TestFakeTerminalKeysTypedBetweenPromptsShowOnce(t *testing.T) {
	for _, c := range []struct {
		name string
		hold string // the write the keys are typed at
		keys string // what leads there from the prompt
		// after is the prompt the keys show at; done the one after Enter
		after, done string
	}{
		{"start", "Type a prompt", "", "todosh › ", "todosh 0/1 › "},
		{"ctrl-c hint", interruptHint, "\x03", "todosh › ", "todosh 0/1 › "},
		// An agent's own list (its hooks keep it) opens as itself: this
		// shell ends, and one on that session starts.
		{"session chosen", "todosh session claude-s1", "/todo list\r", "todosh 0/1 › ", "todosh 0/2 › "},
	} {
		t.Run(c.name, func(t *testing.T) {
			var held, release chan struct{}
			ft, _, stop := startFake(t, func(cfg *Config, ft *fakeTerminal) {
				if _, err := todostore.Open(cfg.Root).Update("claude-s1", func(s *todostore.Session) error {
					s.Todos, s.Cwd = renderTodos("from the agent"), cfg.Cwd
					s.Agent, s.Hooks = &todostore.AgentRef{Kind: "claude", Session: "s1"}, &todostore.HookState{}
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				if c.keys == "" {
					held, release = ft.holdAt(c.hold)
				}
			})
			if c.keys != "" {
				ft.wait(t, "todosh › ")
				held, release = ft.holdAt(c.hold)
				ft.typ(t, c.keys)
				if c.keys == "/todo list\r" {
					ft.wait(t, "load which list?")
					ft.typ(t, chooserRow(t, ft.screen(), "claude-s1")+"\r")
				}
			}
			select {
			case <-held:
			case <-time.After(10 * time.Second):
				t.Fatalf("the shell never wrote %q; screen:\n%q", c.hold, ft.screen())
			}
			ft.typ(t, "/todo add abc")
			close(release)
			ft.wait(t, c.after+"/todo add abc")
			// readline may draw the prompt and line more than once; the
			// terminal's echo is the keys without a prompt before them.
			screen := ft.screen()
			if n := strings.Count(screen, "/todo add abc") - strings.Count(screen, "› /todo add abc"); n != 0 {
				t.Errorf("the keys typed show %d times besides the prompt, want never:\n%q", n, screen)
			}
			ft.typ(t, "\r")
			ft.wait(t, c.done)
			stop()
		})
	}
}

// chooserRow is the number /todo list's chooser gives the row with text.
func chooserRow(t *testing.T, screen, text string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^\s*(\d+)\s.*` + regexp.QuoteMeta(text)).FindStringSubmatch(screen)
	if m == nil {
		t.Fatalf("no row of /todo list with %q in:\n%s", text, screen)
	}
	return m[1]
}
