package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/todosh/todosh/textwidth"

	"github.com/chzyer/readline"
	"github.com/todosh/todosh/commands"
	"github.com/todosh/todosh/todostore"
)

// interruptHint is printed when Ctrl-C is pressed on an empty line: the
// shell never exits on Ctrl-C, so it says how to.
const interruptHint = "(Ctrl-D or /quit to exit)"

// RunTerminal runs the interactive shell on t until Ctrl-D on an empty
// line, /quit or /exit, and returns the exit status. The line editor, the
// live region and the writers are made first, then the shell is built
// once around them. One goroutine (this one) owns every Readline call and
// Close, because readline's Close hangs while another goroutine reads.
func RunTerminal(cfg Config, t Terminal, stderr io.Writer) int {
	// The terminal echoes no key while the shell runs, from here to the
	// end: readline draws what is typed at the prompt, and keys typed
	// while no line is read (the start, a command, a turn, the chooser's
	// switch to another session, the moments between two lines) wait
	// unshown for the next prompt, which draws them once. Echo on in any
	// of those moments showed them twice: as typed, then at the prompt.
	// readline's raw mode and the countdown's each put back this mode.
	restoreMode := t.NoEcho()
	defer restoreMode()
	pal := palette{on: UseColor(cfg.Color, true, cfg.Getenv)}
	history := todostore.Open(cfg.Root).HistoryPath()
	if err := privateHistory(history); err != nil {
		fmt.Fprintf(stderr, "todosh: history will not be saved: %v\n", err)
		history = ""
	}
	var reg *commands.Registry
	rl, err := newEditor(t, history, func(line string) []string {
		if reg == nil {
			return nil
		}
		return reg.Complete(line)
	})
	if err != nil {
		fmt.Fprintf(stderr, "todosh: start the terminal: %v\n", err)
		return ExitFailed
	}
	defer rl.Close()
	if history != "" {
		// readline's rewrite of a long history goes through history.tmp,
		// which privateHistory made 0600; whatever is left of it goes.
		os.Remove(history + ".tmp")
	}
	io.WriteString(t.Output(), bracketedPasteOn)
	defer io.WriteString(t.Output(), bracketedPasteOff)

	width := func() int {
		cols, _ := t.Size()
		return cols
	}
	// Writes through readline redraw the prompt when it is shown; during
	// a turn the live region keeps itself below them.
	out := io.Writer(rl.Stdout())
	if cfg.Quiet {
		out = io.Discard
	}
	live := newLiveRegion(out, t.Size, pal)
	t.OnResize(live.Resized)
	t.OnStop(live.Suspend, live.Resume)
	render := NewRenderer(live)
	render.live, render.fullList, render.cols, render.pal = live, true, width, pal
	render.errOut = errorWriter(rl.Stderr(), pal)
	var asking atomic.Bool
	ask := askWith(rl)
	sio := shellIO{
		out: colorWriter(rl.Stdout(), pal), err: errorWriter(rl.Stderr(), pal), render: render, live: live, width: width,
		ask: func(prompt string) (string, error) {
			asking.Store(true)
			defer asking.Store(false)
			return ask(prompt)
		},
		countdown:  ttyCountdown{term: t, show: live.SetStatus}.run,
		permission: ttyAsk{term: t, out: live}.ask,
		canSwitch:  true,
	}
	// The person may open another session from /todo list
	// (commands.SwitchTo): this shell ends, and one on that session
	// starts in the same terminal, as `todosh --session ID` would.
	for {
		sh, err := open(cfg, sio)
		if err != nil {
			fmt.Fprintf(stderr, "todosh: %v\n", err)
			return ExitFailed
		}
		reg = sh.registry
		code := runShell(sh, rl, render, &asking, restoreMode, stderr)
		if sh.switchTo == "" {
			return code
		}
		cfg.SessionID, cfg.Resume = sh.switchTo, true
	}
}

// runShell runs one shell of RunTerminal until it ends, its agent's
// processes with it. restoreMode puts the terminal back as todosh found
// it, for an exit on a signal.
func runShell(sh *shell, rl *editor, render *Renderer, asking *atomic.Bool, restoreMode func(), stderr io.Writer) int {
	sh.signals.stderr, sh.signals.exit, sh.signals.restore = stderr, os.Exit, restoreMode
	sh.signals.atPrompt = rl.reading.Load
	// The agent's processes end with the shell, also on a signal, whose
	// exit skips the deferred calls.
	sh.signals.beforeExit = func() { closeAgent(sh.runner.Agent) }
	defer closeAgent(sh.runner.Agent)
	ctx, stop := sh.signals.watch(context.Background())
	defer stop() // after a signal, never returns: exitOn exits
	return sh.interactive(ctx, rl, render, asking)
}

// editor is the line editor: readline behind the key filter, and the
// shell's own record of whether a line is being read now.
type editor struct {
	*readline.Instance
	keys *keyFilter
	term io.Writer // the terminal's output, without readline
	// reading is true while Readline runs. readline decides by whether
	// its key goroutine is reading, and that goroutine stops only some
	// time after Readline has returned the line: on a loaded machine the
	// first lines of a turn (the live region's status line) came through
	// readline's writer as if at the prompt, which drew the prompt again
	// in the middle of the turn.
	reading atomic.Bool
}

// newEditor is the line editor on t: readline behind the key filter
// (Home/End, bracketed paste, Alt-Enter), with history and completion.
func newEditor(t Terminal, history string, complete func(string) []string) (*editor, error) {
	keys := newKeyFilter(t.Input())
	rl, err := readline.NewEx(&readline.Config{
		Prompt:            promptText(nil),
		HistoryFile:       history,
		HistorySearchFold: true,
		// readline saves a line after it has handed it over, so a line
		// read with the history off (askWith) was sometimes saved once the
		// history was on again: the shell saves what it runs itself.
		DisableAutoSaveHistory: true,
		AutoComplete:           completer{complete: complete},
		Stdin:                  keys,
		Stdout:                 t.Output(),
		Stderr:                 t.Output(),
		// A pasted block arrives as one pasteMark; it is swapped for the
		// block in one redraw instead of one per character.
		Listener: readline.FuncListener(func(line []rune, pos int, key rune) ([]rune, int, bool) {
			if key != pasteMark {
				return nil, 0, false
			}
			return keys.insertPastes(line, pos)
		}),
		FuncIsTerminal: func() bool { return true },
		FuncMakeRaw:    t.MakeRaw,
		FuncExitRaw:    t.ExitRaw,
		FuncGetWidth: func() int {
			cols, _ := t.Size()
			return cols
		},
		FuncOnWidthChanged: t.OnResize,
	})
	if err != nil {
		return nil, err
	}
	return &editor{Instance: rl, keys: keys, term: t.Output()}, nil
}

// Readline reads one line at the prompt.
func (e *editor) Readline() (string, error) {
	e.reading.Store(true)
	defer e.reading.Store(false)
	return e.Instance.Readline()
}

// ReadlineWithDefault reads one line at the prompt, starting with what.
// readline draws the prompt with what before it switches the terminal to
// raw mode, so keys typed as soon as the prompt shows went through the
// terminal's line mode (echoed, before RunTerminal turned the echo off for
// the whole session; a pasted CR turned into a second line): the terminal
// is made raw first. Terminal.MakeRaw while raw does nothing, so
// readline's own switch and its way back still pair up.
func (e *editor) ReadlineWithDefault(what string) (string, error) {
	e.reading.Store(true)
	defer e.reading.Store(false)
	if err := e.Instance.Terminal.EnterRawMode(); err == nil {
		defer e.Instance.Terminal.ExitRawMode()
	}
	return e.Instance.ReadlineWithDefault(what)
}

// Refresh redraws the prompt and the line being typed, if one is.
func (e *editor) Refresh() {
	if e.reading.Load() {
		e.Instance.Refresh()
	}
}

// Stdout and Stderr are where the shell prints whole lines: above the
// prompt and the line being typed while a line is read, straight to the
// terminal otherwise (during a command or a turn, where the live region
// keeps itself below them).
func (e *editor) Stdout() io.Writer { return lineWriter{e, e.Instance.Stdout()} }

// Stderr is Stdout for errors.
func (e *editor) Stderr() io.Writer { return lineWriter{e, e.Instance.Stderr()} }

// Close ends the editor. The key input is closed first: readline's Close
// waits for its key goroutine, which can be blocked reading the terminal
// when the shell ends (after a NUL, which readline takes for the end of
// input, it reads on; a Ctrl-D typed during a turn arrives as one), and
// readline closes only its own wrapper of the input, never the input.
func (e *editor) Close() error {
	e.keys.Close()
	return e.Instance.Close()
}

// lineWriter is the editor's Stdout or Stderr: through readline's writer
// (prompt erased, lines written, prompt drawn again) only while the shell
// is in Readline.
type lineWriter struct {
	e        *editor
	prompted io.Writer
}

func (w lineWriter) Write(p []byte) (int, error) {
	if w.e.reading.Load() {
		return w.prompted.Write(p)
	}
	return w.e.term.Write(p)
}

// interactive is the read loop of RunTerminal.
func (s *shell) interactive(ctx context.Context, rl *editor, render *Renderer, asking *atomic.Bool) int {
	stop := ignoreInterrupts()
	defer stop()

	// The watcher must hook the store before anything else uses it.
	if w, err := s.store.Watch(s.id); err != nil {
		fmt.Fprintf(s.stderr, "todosh: changes from other processes will not be shown: %v\n", err)
	} else {
		defer w.Close()
		// Through the live region, which passes lines through between
		// turns and keeps itself below them during one.
		view := liveView{out: render.live, render: render, asking: asking, lastGood: &s.lastGood, setPrompt: func(p string) {
			rl.SetPrompt(p)
			rl.Refresh()
		}}
		go view.run(w.Changes())
	}
	s.env.LastGood = s.lastGood.Load

	if !s.quiet {
		cols := 0
		if s.env.Width != nil {
			cols = s.env.Width()
		}
		io.WriteString(s.env.Out, textwidth.FitLines(s.banner(), cols))
	}
	if sess, err := s.store.LoadOrNew(s.id); err != nil {
		fmt.Fprintf(s.env.Err, "todosh: %v\n", err)
	} else if s.resumed {
		// The receipts before the first turn too (a resumed session, one
		// opened from /todo list), as /todo show gives them.
		render.SetWork(s.runner.work)
		render.Seen(nil)
		render.Todos(sess.Todos)
	}
	// Keys typed during a countdown: whole lines (ended by Enter) run next,
	// as if typed at the prompt; the rest starts the next line read.
	var typedLines []string
	typed := ""
	for {
		prompt := s.prompt()
		rl.SetPrompt(prompt)
		var line string
		var err error
		if len(typedLines) > 0 {
			line, typedLines = typedLines[0], typedLines[1:]
			fmt.Fprintf(s.env.Out, "%s%s\n", prompt, line)
			rl.SaveHistory(line)
		} else {
			line, err = rl.ReadlineWithDefault(typed)
			typed = ""
			if err == nil {
				rl.SaveHistory(line)
			}
		}
		if errors.Is(err, readline.ErrInterrupt) {
			// readline has already dropped a typed line; an empty one gets
			// the hint instead of an exit.
			if strings.TrimSpace(line) == "" {
				fmt.Fprintln(s.env.Out, interruptHint)
			}
			continue
		}
		if err != nil { // io.EOF: Ctrl-D on an empty line
			return ExitOK
		}
		line = strings.TrimSpace(sentLine(line))
		if line == "" {
			continue
		}
		// Keys typed while the line runs (a turn, or a command waiting for
		// a lock) are not echoed (RunTerminal): readline shows them at the
		// next prompt.
		more, quit, _ := s.exec(ctx, line)
		if quit || ctx.Err() != nil {
			// On an exit signal no prompt is drawn: RunTerminal's stop
			// waits for exitOn, which exits with the signal's status.
			return ExitOK
		}
		if more != "" {
			parts := strings.Split(more, "\n")
			typedLines = append(typedLines, parts[:len(parts)-1]...)
			typed = parts[len(parts)-1]
		}
	}
}

// prompt is the prompt for the session as it is on disk now, so changes
// by commands, the agent or another process all show.
// While the file cannot be used the last good progress stays, marked.
func (s *shell) prompt() string {
	sess, err := s.store.LoadOrNew(s.id)
	if err != nil {
		return strings.Replace(promptText(s.lastGood.Load()), " ›", " (file unusable) ›", 1)
	}
	s.lastGood.Store(sess)
	return promptText(sess)
}

// askWith returns the Env.Ask of a terminal: one line read with the
// shell's readline under another prompt, kept out of the history. Enter
// and Ctrl-C both answer "" (cancel); Ctrl-D returns io.EOF.
func askWith(rl *editor) func(string) (string, error) {
	return func(prompt string) (string, error) {
		rl.SetPrompt(prompt)
		line, err := rl.Readline() // not saved: an answer is no command
		if errors.Is(err, readline.ErrInterrupt) {
			return "", nil
		}
		return strings.TrimSpace(line), err
	}
}

// ignoreInterrupts keeps SIGINT from killing the shell outside readline
// (during a slow command, between two reads); each agent turn still gets
// its own SIGINT through signal.NotifyContext. The returned func undoes it.
func ignoreInterrupts() (stop func()) { return onSignal(os.Interrupt, func() {}) }

// onSignal calls f on every arrival of sig, one call at a time, until
// stop; the signal's own action is replaced meanwhile.
func onSignal(sig os.Signal, f func()) (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sig)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-ch:
				f()
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}

// privateHistory makes every line typed readable by its owner only: the
// store root is private, and the history file and the temp file readline
// rewrites it through exist with mode 0600 before readline opens them
// (readline creates files 0666 and keeps the mode of an existing one). A
// history file that is a symlink is refused rather than followed.
func privateHistory(path string) error {
	if err := todostore.EnsurePrivateDir(filepath.Dir(path)); err != nil {
		return err
	}
	if err := todostore.PrivateFile(path); err != nil {
		return err
	}
	return todostore.PrivateFile(path + ".tmp")
}
