// Package repl is the todosh shell: it opens a session, then reads lines
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

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/agent/backends"
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
	// lastGood is the last list read or delivered that was usable: while
	// the file on disk cannot be used, the prompt and /todo show keep it.
	lastGood atomic.Pointer[todostore.Session]
	// signals ends the shell on SIGTERM, SIGHUP and SIGQUIT once the
	// running line has ended.
	signals signalExit
}

// Run opens the session cfg names and runs the shell until the input ends
// or the person quits: interactive when stdin and stdout are terminals and
// no -c was given, a script otherwise. It returns the exit status.
func Run(cfg Config, stdin io.Reader, stdout, stderr io.Writer) int {
	sh, err := open(cfg, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "todosh: %v\n", err)
		return ExitFailed
	}
	sh.signals.stderr, sh.signals.exit = stderr, os.Exit
	if in, ok := stdin.(*os.File); ok {
		sh.signals.restore = saveTerminal(int(in.Fd()))
	}
	// The agent's processes end with the shell, also on a signal, whose
	// exit skips the deferred calls.
	sh.signals.beforeExit = func() { closeAgent(sh.runner.Agent) }
	defer closeAgent(sh.runner.Agent)
	ctx, stop := sh.signals.watch(context.Background())
	defer stop() // after a signal, never returns: exitOn exits
	if len(cfg.Commands) > 0 {
		return sh.runScript(ctx, sliceLines(cfg.Commands))
	}
	if in, out, ok := terminals(stdin, stdout); ok {
		return sh.interactive(ctx, in, out)
	}
	return sh.runScript(ctx, scanLines(stdin))
}

// open resolves which session to use and builds the registry, the command
// environment and the turn runner around it. Nothing is written to disk.
func open(cfg Config, stdout, stderr io.Writer) (*shell, error) {
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
	store.OnLockWait = func(msg string) { fmt.Fprintf(stderr, "todosh: %s\n", msg) }
	id, err := sessionID(cfg, store, cwd, now)
	if err != nil {
		return nil, err
	}
	asess := agent.Session{Store: store, ID: id, Cwd: cwd}
	var ag agent.Agent
	if cfg.NewAgent != nil {
		if ag, err = cfg.NewAgent(asess); err != nil {
			return nil, fmt.Errorf("start the agent: %w", err)
		}
	}
	return &shell{
		store:    store,
		id:       id,
		cwd:      cwd,
		registry: commands.NewRegistry(),
		env: &commands.Env{
			Store: store, SessionID: id, Cwd: cwd,
			Out: stdout, Err: stderr, Now: now,
			Home: cfg.Home, Getenv: cfg.Getenv,
			Agent: agentLine(cfg.Backend),
		},
		runner: &TurnRunner{
			Agent: ag, Session: asess, Out: stdout, Err: stderr, Cwd: cwd,
			Continue: !cfg.NoContinue, Delay: cfg.ContinueDelay,
			Backend: cfg.Backend,
		},
		stderr: stderr,
	}, nil
}

// agentLine is what /help says about the agent, from its backend row.
func agentLine(b *backends.Backend) string {
	if b == nil {
		return ""
	}
	return b.Describe()
}

// sessionID picks the session: the one named, the most recent one started
// in cwd (--resume), or a new id. A named session wins over Resume.
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
	if commands.IsCommand(line) {
		err := s.registry.Run(s.env, line)
		if errors.Is(err, commands.ErrQuit) {
			return "", true, nil
		}
		if err != nil {
			fmt.Fprintln(s.env.Err, err)
		}
		return "", false, err
	}
	typed, err = s.runner.RunPrompt(ctx, line)
	return typed, false, err
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
