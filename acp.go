package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	flag "github.com/spf13/pflag"

	"github.com/todosh/todosh/acpserve"
	"github.com/todosh/todosh/backends"
	"github.com/todosh/todosh/repl"
	"github.com/todosh/todosh/todostore"
)

// acpUsage is the first part of `todosh acp --help`.
const acpUsage = `usage: todosh acp [--agent NAME] [flags] [-- CMD [ARG]...]

Speaks the Agent Client Protocol as an agent on stdin and stdout, for an
editor (Zed, JetBrains, Neovim CodeCompanion, acpx: see docs/editors.md),
and runs the agent --agent NAME behind it (any backend below; -- CMD ARGS
runs any ACP agent). The editor gets todosh's todo list as its plan on
every change, /todo answered by todosh, and continuation of a lazy agent
inside the same prompt. Messages for people go to stderr only.

flags:
`

// runACP is `todosh acp`: the third entry of the same binary, serving an
// editor until it closes stdin.
func runACP(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	cfg, err := parseACPFlags(args, stdout, getenv)
	if errors.Is(err, flag.ErrHelp) {
		return repl.ExitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "todosh acp: %v (see todosh acp --help)\n", err)
		return repl.ExitUsage
	}
	if cfg.Root, err = todostore.ResolveRoot(getenv); err != nil {
		fmt.Fprintf(stderr, "todosh acp: %v\n", err)
		return repl.ExitFailed
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if err := acpserve.Serve(ctx, cfg, stdin, stdout); err != nil {
		fmt.Fprintf(stderr, "todosh acp: %v\n", err)
		return repl.ExitFailed
	}
	return repl.ExitOK
}

// parseACPFlags turns `todosh acp`'s command line into the server's
// configuration, with the inner agent chosen from the backend table as
// the shell chooses it; nothing is started. flag.ErrHelp means --help was
// printed on stdout.
func parseACPFlags(args []string, stdout io.Writer, getenv func(string) string) (acpserve.Config, error) {
	fs := newFlagSet("todosh acp")
	home, _ := todostore.HomeDir(getenv)
	cfg := acpserve.Config{Getenv: getenv, Home: home, Version: versionText()}
	ag := defineAgentFlags(fs, getenv, true)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, acpUsage)
			printFlags(stdout, fs)
			fmt.Fprint(stdout, "\nagents (--agent NAME):\n"+backends.Help())
			return cfg, err
		}
		return cfg, flagError(fs, err)
	}
	var err error
	cfg.Backend, cfg.NewAgent, err = ag.choose(fs, nil, "give the agent's command after -- (todosh acp -- CMD ARGS)")
	cfg.Continue, cfg.LockTimeout, cfg.Budget = !ag.noContinue, ag.lockTimeout, ag.budget
	cfg.RequireEvidence = ag.opts.RequireEvidence
	return cfg, err
}
