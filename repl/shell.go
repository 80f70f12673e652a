// Package repl is the todosh shell (ARCHITECTURE.md §5): it opens a session, then reads lines
// from a terminal (readline, with history, completion and a countdown
// before continuations) or from a script (stdin or -c), and sends slash
// commands to the command registry and everything else to the agent.
package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/todosh/todosh/todolist"
	"github.com/todosh/todosh/todoview"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/backends"
	"github.com/todosh/todosh/board/boardcmd"
	"github.com/todosh/todosh/commands"
	"github.com/todosh/todosh/todostore"
)

// shell is one opened session with everything a line needs to run. Its
// writers are swapped for readline's in a terminal.
type shell struct {
	store    *todostore.Store
	id       string
	cwd      string
	registry *commands.Registry
	env      *commands.Env
	runner   *TurnRunner
	stderr   io.Writer
	quiet    bool // --quiet: no banner, change lines or agent text
	resumed  bool // --resume: the list is shown at the start
	jsonl    *jsonlView
	// lastGood is the last list read or delivered that was usable: while
	// the file on disk cannot be used, the prompt and /todo show keep it.
	lastGood atomic.Pointer[todostore.Session]
	// signals ends the shell on SIGTERM, SIGHUP and SIGQUIT once the
	// running line has ended.
	signals signalExit
	// switchTo is the session the person picked to open in place of this
	// one (commands.SwitchTo); the terminal then opens it.
	switchTo string
}

// Run opens the session cfg names and runs the shell until the input ends
// or the person quits: interactive when stdin and stdout are terminals and
// no -c or --output jsonl was given, a script otherwise. It returns the
// exit status.
func Run(cfg Config, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(cfg.Commands) == 0 && cfg.Output != OutputJSONL {
		if t, ok := newTTY(stdin, stdout); ok {
			return RunTerminal(cfg, t, stderr)
		}
	}
	if cfg.Output == OutputJSONL && len(cfg.Commands) == 0 && IsTerminal(stdin) {
		// Otherwise it waits for input in silence and looks hung.
		fmt.Fprintln(stderr, "todosh: --output jsonl reads commands from standard input, one a line (Ctrl-D ends them); give them with -c or a pipe instead")
	}
	sio := scriptIO(cfg, stdout, stderr)
	sh, err := open(cfg, sio)
	if err != nil {
		fmt.Fprintf(stderr, "todosh: %v\n", err)
		if sio.jsonl != nil {
			sio.jsonl.Error(err.Error())
			sio.jsonl.End(EndError)
		}
		return ExitFailed
	}
	sh.watchSignals(stderr, stdin)
	if sio.jsonl != nil {
		sh.signals.final = sio.jsonl.endSignal
	}
	// The agent's processes end with the shell, also on a signal, whose
	// exit skips the deferred calls.
	sh.signals.beforeExit = func() { closeAgent(sh.runner.Agent) }
	defer closeAgent(sh.runner.Agent)
	ctx, stop := sh.signals.watch(context.Background())
	defer stop() // after a signal, never returns: exitOn exits
	if sh.resumed {
		sh.showResumed(sio)
	} else if r, ok := sio.render.(*Renderer); ok {
		// A script's positions mean the list as it was when it started,
		// then as its own commands left it.
		if sess, err := sh.store.LoadOrNew(sh.id); err == nil {
			r.Seen(sess.Todos)
		}
	}
	if len(cfg.Commands) > 0 {
		return sh.runScript(ctx, sliceLines(cfg.Commands))
	}
	return sh.runScript(ctx, scanLines(stdin))
}

// shellIO is where a shell's output goes and what it may ask of a
// terminal: built before the shell, for a terminal (RunTerminal) or a
// script (scriptIO), so the shell is made once with the right one.
type shellIO struct {
	out, err  io.Writer // what commands print; their errors
	render    turnView  // the agent's turns
	live      *liveRegion
	width     func() int
	ask       func(prompt string) (string, error)
	countdown func(ctx context.Context, d time.Duration) (proceed bool, typed string)
	// permission answers an agent's question during a turn (TurnRunner.Ask).
	permission func(ctx context.Context, q agent.Question) (int, error)
	jsonl      *jsonlView // set with --output jsonl
	// canSwitch: the terminal opens another session in place of this one
	// (commands.Env.CanSwitch).
	canSwitch bool
}

// scriptIO is the output of a script: text lines (an agent's list changes
// as one line each) or, with --output jsonl, one JSON event per line.
func scriptIO(cfg Config, stdout, stderr io.Writer) shellIO {
	if cfg.Output == OutputJSONL {
		j := newJSONLView(stdout)
		return shellIO{out: j.commandOutput(), err: stderr, render: j, jsonl: j}
	}
	out := stdout
	if cfg.Quiet {
		out = io.Discard
	}
	r := NewRenderer(out)
	r.errOut = stderr
	r.pal = palette{on: UseColor(cfg.Color, false, cfg.Getenv)}
	if r.pal.on {
		r.errOut = errorWriter(stderr, r.pal)
		return shellIO{out: colorWriter(stdout, r.pal), err: errorWriter(stderr, r.pal), render: r}
	}
	return shellIO{out: stdout, err: stderr, render: r}
}

// watchSignals prepares the shell's end on SIGTERM, SIGHUP and SIGQUIT:
// messages on stderr, and stdin's terminal mode (when it is a terminal)
// put back before the exit.
func (s *shell) watchSignals(stderr io.Writer, stdin any) {
	s.signals.stderr, s.signals.exit = stderr, os.Exit
	if in, ok := stdin.(*os.File); ok {
		s.signals.restore = saveTerminal(int(in.Fd()))
	}
}

// showResumed prints, for --resume, the session's id and its list.
func (s *shell) showResumed(sio shellIO) {
	sess, err := s.store.LoadOrNew(s.id)
	if err != nil {
		fmt.Fprintf(s.stderr, "todosh: %v\n", err)
		return
	}
	if sio.jsonl != nil {
		sio.jsonl.Seen(nil)
		sio.jsonl.listFrom("resume", sess.Todos)
		return
	}
	if s.quiet {
		return
	}
	// With the receipts /todo show gives, so a completion the agent only
	// reported reads as one here too.
	fmt.Fprintf(sio.out, "resumed session %s\n%s", s.id, todoview.FormatListSeen(sess.Todos, 0, s.runner.work()))
}

// open resolves which session to use and builds the registry, the command
// environment and the turn runner around it. Nothing is written to disk.
func open(cfg Config, sio shellIO) (*shell, error) {
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	cwd := cfg.Cwd
	if cwd == "" {
		var err error
		if cwd, err = os.Getwd(); err != nil {
			return nil, fmt.Errorf("find the current directory: %w", err)
		}
	}
	store := todostore.Open(cfg.Root)
	store.Now = now
	store.LockTimeout = cfg.LockTimeout
	store.OnLockWait = func(msg string) { fmt.Fprintf(sio.err, "todosh: %s\n", msg) }
	// A todo claimed from the board finishes its board item when it
	// completes, whoever completes it in this process.
	boardcmd.Follow(store, &boardcmd.Follower{Getenv: cfg.Getenv, Err: sio.err})
	id, err := sessionID(cfg, store, cwd, now)
	if err != nil {
		return nil, err
	}
	asess := agent.Session{Store: store, ID: id, Cwd: cwd}
	var ag agent.Agent
	var agentErr error
	if cfg.NewAgent != nil {
		// A prompt needs the agent, a slash command does not: an agent
		// that cannot start (no model chosen) refuses prompts only.
		if ag, err = cfg.NewAgent(asess); err != nil {
			ag, agentErr = nil, fmt.Errorf("start the agent: %w", err)
		}
	}
	if sio.jsonl != nil {
		sio.jsonl.session = id
	}
	env := &commands.Env{
		Store: store, SessionID: id, Cwd: cwd,
		Out: sio.out, Err: sio.err, Now: now,
		Home: cfg.Home, Getenv: cfg.Getenv,
		Ask: sio.ask, Quiet: cfg.Quiet, Width: sio.width,
		Agent: agentLine(cfg.Backend), CanSwitch: sio.canSwitch,
	}
	if r, ok := sio.render.(*Renderer); ok {
		// What the shell showed is the list the person saw: commands
		// resolve positions against it and add what they show to it, so
		// a notice of another process's change never repeats the
		// person's own (docs/commands.md, "Positions").
		env.Seen, env.Shown = r.Shown, r.Seen
	}
	sh := &shell{
		store:    store,
		id:       id,
		cwd:      cwd,
		registry: commands.NewRegistry(),
		env:      env,
		runner: &TurnRunner{
			Agent: ag, AgentErr: agentErr, Session: asess, Out: sio.out, Err: sio.err, Cwd: cwd,
			Continue: !cfg.NoContinue, Budget: cfg.Budget, Delay: cfg.ContinueDelay,
			Countdown: sio.countdown, render: sio.render, live: sio.live,
			Backend: cfg.Backend, Ask: sio.permission,
		},
		stderr:  sio.err,
		quiet:   cfg.Quiet,
		resumed: cfg.Resume,
		jsonl:   sio.jsonl,
	}
	if ag != nil {
		sh.env.Budget = sh.runner
	}
	return sh, nil
}

// banner is what the interactive shell prints first: the session, the
// agent, and how to go on. Each line fits 80 columns with a generated id.
func (s *shell) banner() string {
	name := "none"
	if s.runner.Backend != nil {
		name = s.runner.Backend.Name
	}
	next := "Type a prompt for the agent, /help for commands, Ctrl-D to quit."
	switch {
	case s.runner.AgentErr != nil:
		next = "todosh: " + s.runner.AgentErr.Error() + "\nPrompts are refused until it can; /todo commands work. Ctrl-D quits."
	case s.runner.Agent == nil:
		next = "No agent: /todo commands only (todosh --help lists agents). Ctrl-D quits."
	}
	return "todosh session " + s.id + " · agent " + name + "\n" + next + "\n"
}

// agentLine is what /help says about the agent, from its backend row.
func agentLine(b *backends.Backend) string {
	if b == nil {
		return ""
	}
	return b.Describe()
}

// sessionID picks the session: the one named, the one of cwd changed
// most recently (--resume), or a new id. A named session wins over Resume.
func sessionID(cfg Config, store *todostore.Store, cwd string, now func() time.Time) (string, error) {
	switch {
	case cfg.SessionID != "":
		return cfg.SessionID, todostore.ValidSessionID(cfg.SessionID)
	case cfg.Resume:
		return store.MostRecentIn(cwd)
	}
	return todostore.NewSessionID(now()), nil
}

// exec runs one line that is not blank: a slash command through the
// registry (its error printed on Err) or a prompt through the turn runner
// (which prints its own messages). typed is what the person typed to take
// over a continuation; quit is set by /quit and /exit.
func (s *shell) exec(ctx context.Context, line string) (typed string, quit bool, err error) {
	s.signals.busy.Lock()
	defer s.signals.busy.Unlock()
	if err := ctx.Err(); err != nil {
		return "", true, err // ending on a signal: run nothing more
	}
	if isCommandLine(line) {
		var before []todolist.Todo
		if s.jsonl != nil {
			before = s.jsonl.loadList(s.store, s.id)
		}
		err := s.registry.Run(s.env, line)
		if s.jsonl != nil {
			s.jsonl.commandDone(s.store, s.id, before, err)
		}
		if errors.Is(err, commands.ErrQuit) {
			return "", true, nil
		}
		if sw := (*commands.SwitchTo)(nil); errors.As(err, &sw) {
			s.switchTo = sw.ID
			return "", true, nil
		}
		if err != nil {
			fmt.Fprintln(s.env.Err, err)
			return "", false, err
		}
		// /todo budget +N after a prompt stopped at its budget: the
		// shell goes on with the same list.
		typed, err = s.runner.Resume(ctx)
		return typed, false, err
	}
	typed, err = s.runner.RunPrompt(ctx, line)
	return typed, false, err
}

// isCommandLine reports whether a line runs as a slash command: it starts
// with "/" and is one line. A pasted block of several lines is always a
// prompt, even when one of its lines looks like a command.
func isCommandLine(line string) bool {
	return commands.IsCommand(line) && !strings.Contains(line, "\n")
}

// promptText is the readline prompt for a session: its progress, or none
// when the list is empty or cannot be read.
func promptText(sess *todostore.Session) string {
	if sess != nil {
		if done, total, ok := sess.Progress(); ok {
			return fmt.Sprintf("todosh %d/%d › ", done, total)
		}
	}
	return "todosh › "
}

// scriptLine reports whether a script line runs, and trims it: blank lines
// and # comments are skipped.
func scriptLine(raw string) (string, bool) {
	line := strings.TrimSpace(raw)
	return line, line != "" && !strings.HasPrefix(line, "#")
}
