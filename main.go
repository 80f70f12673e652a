// Command todosh is a terminal shell for working with an AI coding agent:
// every conversation gets a todo list on disk that slash commands edit and
// that keeps a lazy agent working until it is done. See README.md.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/todosh/todosh/repl"
	"github.com/todosh/todosh/todostore"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}

// run is main without the process: it parses flags, resolves the store
// and hands over to the shell, returning the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	cfg, err := parseFlags(args, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return repl.ExitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "todosh: %v (see todosh --help)\n", err)
		return repl.ExitUsage
	}
	if cfg.Root, err = todostore.ResolveRoot(getenv); err != nil {
		fmt.Fprintf(stderr, "todosh: %v\n", err)
		return repl.ExitFailed
	}
	return repl.Run(cfg, stdin, stdout, stderr)
}

// usage is the first part of --help; the flags follow it.
const usage = `usage: todosh [--session ID | --resume] [-c CMD]...

todosh is a shell for an AI coding agent with a todo list that lives on
disk. Lines starting with / are commands (type /help); any other line is a
prompt for the agent. With -c, or when stdin is not a terminal, each line
runs as if typed and the exit status is 1 if any line failed.

Files live in $TODOSH_HOME (default ~/.todosh).

flags:
`

// parseFlags turns the command line into the shell's configuration. Each
// flag is one line that fills one field of repl.Config; checks that need
// no file (session id syntax, conflicting flags) are done here so a bad
// command line touches nothing. Errors are flag errors (exit status 2);
// flag.ErrHelp means --help was printed on stdout.
func parseFlags(args []string, stdout io.Writer) (repl.Config, error) {
	cfg := repl.NewConfig()
	fs := flag.NewFlagSet("todosh", flag.ContinueOnError)
	// Errors are returned and printed as one line by run, not with the
	// whole usage; only --help prints it.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}

	// Session and script flags.
	fs.StringVar(&cfg.SessionID, "session", "", "open (or create) the session `ID`")
	fs.BoolVar(&cfg.Resume, "resume", false, "reopen the most recent session started in this directory")
	fs.Func("c", "run `CMD` as if typed, then exit (repeatable, runs in order)", func(s string) error {
		cfg.Commands = append(cfg.Commands, s)
		return nil
	})

	// Agent flags go here, one line each, filling cfg.NewAgent (built
	// from their values after Parse), cfg.NoContinue and
	// cfg.ContinueDelay.

	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
			fmt.Fprint(stdout, usage)
			fs.PrintDefaults()
		}
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected argument %q: give commands and prompts with -c, or on stdin", strings.Join(fs.Args(), " "))
	}
	if cfg.SessionID != "" {
		if err := todostore.ValidSessionID(cfg.SessionID); err != nil {
			return cfg, fmt.Errorf("--session: %w", err)
		}
		if cfg.Resume {
			return cfg, errors.New("--session and --resume do not go together: name a session or resume the last one")
		}
	}
	return cfg, nil
}
